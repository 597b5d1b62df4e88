import { spawn } from 'node:child_process';
import { serviceNodeFlags } from './node-flags.ts';
import net from 'node:net';
import { highWaterMb } from './rss.ts';

const REPO = new URL('../', import.meta.url).pathname;
const READY_TIMEOUT_MS = 120_000;

export interface ColdStart {
  /** Spawn to the first 200 on /readyz, ms. */
  readyMs: number;
  /** Peak RSS of the process up to that moment (VmHWM), MB. */
  peakRssMb: number | null;
}

/** A port nobody listens on right now (the OS picks it; it is released at once for the child). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function ready(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false;
  }
}

/**
 * Spawns the real entry point (`node src/main.ts` with the flags of `npm start`) on `store` and times it from spawn to the first
 * 200 on /readyz (polled every 10 ms), then stops it with SIGTERM and waits for a clean exit, which a
 * PGlite folder needs before anyone opens it again.
 */
export async function coldStart(
  store: { databaseUrl: string | null; dataDir: string },
  options: {
    /** The entry point, from the repository: the service, or the limit (bench/cold-start-limit.ts). */
    entry?: string;
    /** Node's compile cache folder (NODE_COMPILE_CACHE): an empty one measures a first start. */
    compileCache?: string;
  } = {},
): Promise<ColdStart> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [...serviceNodeFlags(), options.entry ?? 'src/main.ts'], {
    cwd: REPO,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      HOST: '127.0.0.1',
      METRICS_PORT: '0', // any free port: several services may run at once
      LOG_LEVEL: 'warn',
      DATA_DIR: store.dataDir,
      ...(store.databaseUrl ? { DATABASE_URL: store.databaseUrl } : {}),
      ...(options.compileCache ? { NODE_COMPILE_CACHE: options.compileCache } : {}),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  try {
    const url = `http://127.0.0.1:${port}/readyz`;
    while (!(await ready(url))) {
      if (exitCode !== undefined) throw new Error(`service exited with ${exitCode} before ready: ${stderr}`);
      if (performance.now() - started > READY_TIMEOUT_MS)
        throw new Error(`service not ready after ${READY_TIMEOUT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return { readyMs: performance.now() - started, peakRssMb: highWaterMb(child.pid!) };
  } finally {
    if (exitCode === undefined) {
      child.kill('SIGTERM');
      const force = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(force);
    }
  }
}

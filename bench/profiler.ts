import fs from 'node:fs';
import path from 'node:path';
import { Session } from 'node:inspector/promises';

/**
 * A CPU profile of just one measured stretch of this process (what `node --cpu-prof` records for the
 * whole life), written as a .cpuprofile that Chrome DevTools and bench/profile-summary.ts read.
 * Returns the function that stops it and writes `file`.
 */
export async function startCpuProfile(): Promise<(file: string) => Promise<string>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  return async (file) => {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(profile));
    return file;
  };
}

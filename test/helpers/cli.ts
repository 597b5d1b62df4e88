import type { AppContext } from '../../src/context.ts';
import { runCli, runLocally } from '../../src/cli/program.ts';

/**
 * The `brandhealth` CLI run in this process, with what a process run gives: the exit code and what
 * it printed on stdout and stderr. Starting `node src/cli/main.ts` costs seconds (a Node start, the
 * module graph, opening PGlite); tests whose subject is a command, not the process, run it here.
 * The process itself (exit status, a closed pipe, the admin socket) is tested in test/cli/.
 */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function capture() {
  const result = { stdout: '', stderr: '' };
  const io = {
    out: (text: string) => void (result.stdout += text),
    err: (text: string) => void (result.stderr += text),
  };
  return { result, io };
}

/** A command run on a running service's context, as the service runs one that came through its admin socket. */
export async function cliOn(ctx: AppContext, ...argv: string[]): Promise<CliResult> {
  const { result, io } = capture();
  const code = await runCli(argv, io, (fn) => fn(ctx));
  return { code, ...result };
}

/**
 * A command run as `brandhealth` runs it when no service holds the database: it opens the database
 * `env` configures (DATABASE_URL, DATA_DIR, ENCRYPTION_KEYS...) for this one command and closes it.
 */
export async function cliLocally(
  env: Record<string, string | undefined>,
  ...argv: string[]
): Promise<CliResult> {
  const { result, io } = capture();
  const code = await runLocally(argv, io, env);
  return { code, ...result };
}

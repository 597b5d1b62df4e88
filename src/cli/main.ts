import { forwardToService } from './admin-client.ts';
import { ConfigError, loadConfig } from '../infra/config.ts';

// The `brandhealth` entry. When a service runs on this configuration it owns the database (PGlite
// allows one process), so the command goes to it through its admin socket; otherwise this process
// opens the database itself. Heavy modules (database, job engine, commands) load only for that.
const argv = process.argv.slice(2);
// A reader that stops early (`| head`) closes the pipe: that ends the command quietly, as for any
// Unix tool, instead of an unhandled EPIPE with a stack.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}
let socketPath: string | null = null;
try {
  socketPath = loadConfig().adminSocket;
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`brandhealth: ${error.message}`);
  process.exit(1);
}
const forwarded = socketPath ? await forwardToService(socketPath, argv) : null;
if (forwarded) process.exitCode = forwarded.exitCode;
else {
  const { runLocally } = await import('./program.ts');
  process.exitCode = await runLocally(argv);
}

import { runSimulatorCli } from './cli.ts';

// `brandhealth simulator` (bin/brandhealth.mjs) and `npm run simulator`: the platform simulator is a
// server of its own, not a database command, so it never goes through the service's CLI or admin socket.
process.exit(await runSimulatorCli(process.argv.slice(2)));

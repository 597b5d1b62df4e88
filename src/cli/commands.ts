import { tacsiCli } from '../tacsi/cli.ts';
import { metricsCli } from '../ingest/cli.ts';
import type { CliExtension } from './registry.ts';

/** Domain subcommands beside the core admin ones (see src/cli/main.ts). */
export const CLI_EXTENSIONS: CliExtension[] = [metricsCli, tacsiCli];

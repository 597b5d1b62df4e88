import { DOMAINS } from '../domains.ts';
import type { CliExtension } from '../infra/cli/registry.ts';

/** Domain subcommands beside the core admin ones (see src/cli/program.ts), in DOMAINS order. */
export const CLI_EXTENSIONS: CliExtension[] = DOMAINS.flatMap((d) => (d.cli ? [d.cli] : []));

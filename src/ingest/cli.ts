// `brandhealth metrics import FILE` and `brandhealth metrics sync`: fill metric_snapshots.
import { access, constants } from 'node:fs/promises';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { dayOption, type CliExtension } from '../infra/cli/registry.ts';
import { ConnectorError } from './connectors/index.ts';
import {
  formatOf,
  importMetricsFile,
  invalidFile,
  type ImportFormat,
  type ImportReport,
} from './import-file.ts';
import { syncPlatform, syncWorkspace, type SyncOptions } from './sync.ts';
import { type Platform, PLATFORMS } from '../core/catalog.ts';
import { METRIC_COLUMNS } from '../core/metric-snapshot.ts';
import { DomainError } from '../core/errors.ts';

function baseUrl(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const m = /^([a-z]+(?:\.[a-z]+)?)=(https?:\/\/\S+)$/.exec(value);
  if (!m || !PLATFORMS.includes(m[1]!.split('.')[0] as Platform)) {
    throw new InvalidArgumentError(
      'must be PLATFORM=URL or PLATFORM.API=URL, e.g. youtube.analytics=https://...',
    );
  }
  return { ...previous, [m[1]!]: m[2]! };
}

function describe(report: ImportReport, dryRun: boolean): string {
  const lines = report.rejected.map((r) => `line ${r.line}: ${r.reason}`);
  if (report.committed) {
    lines.push(
      `imported ${report.imported} of ${report.rows} rows for ${report.workspaces} workspace(s); ` +
        `${report.dailyScores} daily scores recomputed` +
        (report.rejected.length ? `; ${report.rejected.length} invalid row(s) skipped` : ''),
    );
  } else if (dryRun && !report.rejected.length) {
    lines.push(`dry run: all ${report.rows} rows are valid; nothing was written`);
  } else {
    lines.push(`${report.rejected.length} of ${report.rows} rows rejected; nothing was imported`);
  }
  return lines.join('\n');
}

/** Access tokens come from the environment (INSTAGRAM_ACCESS_TOKEN, ...), never the command line. */
function tokensFromEnv(): SyncOptions['tokens'] {
  const tokens: SyncOptions['tokens'] = {};
  for (const p of PLATFORMS) {
    const token = process.env[`${p.toUpperCase()}_ACCESS_TOKEN`];
    if (token) tokens[p] = token;
  }
  return tokens;
}

export const metricsCli: CliExtension = (program: Command, withContext, output) => {
  const metrics = program.command('metrics').description('import or sync daily metric snapshots');

  metrics
    .command('import <file>')
    .description(
      `import snapshots from CSV or JSON lines (workspace_id, platform, day, ${METRIC_COLUMNS.join(', ')}; ` +
        'text/texts instead of the sentiment counts); all or nothing',
    )
    .addOption(
      new Option('--format <format>', 'csv or jsonl (default: from the extension)').choices(['csv', 'jsonl']),
    )
    .option(
      '--skip-invalid',
      'import the valid rows and report the rejected ones, instead of refusing the file',
    )
    .option('--dry-run', 'validate and report without writing')
    .action(
      async (file: string, o: { format?: 'csv' | 'jsonl'; skipInvalid?: boolean; dryRun?: boolean }) => {
        // File problems are reported before the database is opened.
        let format: ImportFormat;
        try {
          format = formatOf(file, o.format);
          await access(file, constants.R_OK);
        } catch (error) {
          if (error instanceof DomainError) throw error;
          throw invalidFile(`cannot read ${file}: ${(error as Error).message}`);
        }
        return withContext(async (ctx) => {
          let report: ImportReport;
          try {
            report = await importMetricsFile(ctx, file, { ...o, format });
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === 'ENOENT')
              throw invalidFile(`no such file: ${file}`);
            throw error;
          }
          output.result(report, () => describe(report, !!o.dryRun));
          if (report.rejected.length && !report.committed) {
            throw invalidFile(`${report.rejected.length} invalid row(s): fix them, or pass --skip-invalid`);
          }
        });
      },
    );

  metrics
    .command('sync')
    .description('fetch metrics of connected platforms from their APIs (tokens from <PLATFORM>_ACCESS_TOKEN)')
    .requiredOption('--workspace <id>', 'workspace id')
    .addOption(
      new Option('--platform <platform>', 'one platform (default: every connected one)').choices([
        ...PLATFORMS,
      ]),
    )
    .option('--since <date>', 'first day (default: 2 days before the last sync, or 89 days ago)', dayOption)
    .option('--until <date>', 'last day (default: today)', dayOption)
    .option('--base-url <platform=url>', 'API base URL override (repeatable)', baseUrl)
    .action(
      async (o: {
        workspace: string;
        platform?: Platform;
        since?: string;
        until?: string;
        baseUrl?: Record<string, string>;
      }) =>
        withContext(async (ctx) => {
          const options: SyncOptions = {
            tokens: tokensFromEnv(),
            ...(o.baseUrl ? { baseUrls: o.baseUrl } : {}),
            ...(o.since ? { since: o.since } : {}),
            ...(o.until ? { until: o.until } : {}),
          };
          try {
            const results = o.platform
              ? [await syncPlatform(ctx, o.workspace, o.platform, options)]
              : await syncWorkspace(ctx, o.workspace, options);
            output.result(
              results,
              () =>
                results
                  .map((r) =>
                    'error' in r
                      ? `${r.platform}: failed: ${r.error}`
                      : `${r.platform}: ${r.snapshots} days ${r.since}..${r.until}, ${r.followers} followers` +
                        r.failures
                          .map(
                            (f) => `\n  not read: ${f.call}${f.metric ? ` (${f.metric})` : ''}: ${f.message}`,
                          )
                          .join(''),
                  )
                  .join('\n') || 'no connected platform',
            );
            if (results.some((r) => 'error' in r))
              throw new DomainError('platform_unavailable', 'some platforms failed to sync');
          } catch (error) {
            // A refused argument (range, platform) is a DomainError already; ConnectorError is the platform's failure.
            if (error instanceof ConnectorError) throw new DomainError('platform_unavailable', error.message);
            throw error;
          }
        }),
    );
};

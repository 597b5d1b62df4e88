// `brandhealth scores recompute`: stored daily scores under the current formula (recompute.ts).
import type { Command } from 'commander';
import { dayOption, type CliExtension } from '../infra/cli/registry.ts';
import { recomputeScores } from './recompute.ts';

export const scoringCli: CliExtension = (program: Command, withContext, output) => {
  const scores = program.command('scores').description('stored Brand Credit Scores');
  scores
    .command('recompute')
    .description(
      'recompute stored daily scores under the current formula, in batches; idempotent, and a re-run with the same arguments resumes where an interrupted one stopped',
    )
    .option('--workspace <id>', 'only this workspace (default: every workspace with metrics)')
    .option(
      '--from <day>',
      "first day to recompute, YYYY-MM-DD (default: each workspace's first metrics day)",
      dayOption,
    )
    .option('--restart', 'ignore the progress of an earlier run with the same arguments')
    .action(async (o: { workspace?: string; from?: string; restart?: boolean }) =>
      withContext(async (ctx) => {
        const lines: string[] = [];
        const report = await recomputeScores(ctx, {
          ...(o.workspace !== undefined ? { workspaceId: o.workspace } : {}),
          ...(o.from !== undefined ? { fromDay: o.from } : {}),
          restart: o.restart === true,
          log: (line) => lines.push(line),
        });
        output.result(report, () =>
          [
            ...lines,
            `${report.days} daily scores for ${report.workspaces} workspace(s) under ${report.formulaVersion} ` +
              `in ${report.batches} batch(es); ${report.skipped} already done by an earlier run ("${report.runKey}")`,
          ].join('\n'),
        );
      }),
    );
};

// `brandhealth tacsi publish|backfill|notice|correct`: manual publication, archive backfill,
// methodology notices and corrections (a new vintage of a published cell, with its reason).
import { InvalidArgumentError, Option, type Command } from 'commander';
import { announceNotice } from './notices.ts';
import { dayOption, type CliExtension } from '../infra/cli/registry.ts';
import { backfill, publishCells, type PublicationOutcome } from './publish.ts';
import { publicationRefused } from './outcome.ts';
import { correctCell, type Correction } from './correct.ts';

function count(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 3660)
    throw new InvalidArgumentError('must be a whole number up to 3660');
  return Number(value);
}

function summary(outcomes: readonly PublicationOutcome[]): string {
  const tally = new Map<string, number>();
  for (const o of outcomes) tally.set(o.status, (tally.get(o.status) ?? 0) + 1);
  const lines = [...tally].map(([status, n]) => `${status}: ${n}`);
  for (const o of outcomes.filter((x) => x.status === 'cap_exceeded')) {
    lines.push(`refused (annual cap): ${o.sector} ${o.cadence} ${o.periodEnd}`);
  }
  return lines.join('\n') || 'nothing to publish';
}

/** A period of the closed methodology, asked for by name, is an error (a backfill only reports it). */
function failOnClosed(outcomes: readonly PublicationOutcome[]): void {
  const closed = outcomes.find((o) => o.status === 'closed');
  if (closed) {
    throw publicationRefused(
      `the ${closed.cadence} period ending ${closed.periodEnd} is before the tacsi-m2 cut-over: tacsi-m1 is ` +
        'closed from the cut-over day on and its archive is final (docs/privacy.md)',
    );
  }
}

/** A refused cell makes the command fail, after the outcomes are printed. */
function failOnRefusal(outcomes: readonly PublicationOutcome[]): void {
  const refused = outcomes.filter((o) => o.status === 'cap_exceeded');
  if (refused.length) {
    throw publicationRefused(
      `${refused.length} cell(s) refused: publishing them would exceed the annual privacy cap`,
    );
  }
}

function correctionSummary(corrections: readonly Correction[]): string {
  return corrections
    .map(
      (c) =>
        `${c.sector} ${c.cadence} ${c.periodEnd}: vintage ${c.vintage} published at ${c.publishedAt} (` +
        (c.rho === null
          ? 'derived again, no privacy cost)'
          : `noised afresh, rho ${c.rho} charged to each entity in it)`),
    )
    .join('\n');
}

export const tacsiCli: CliExtension = (program: Command, withContext, output) => {
  const tacsi = program.command('tacsi').description('publish the TACSI sector index');
  tacsi
    .command('publish')
    .description('publish one period of one sector (or the headline); re-running is a no-op')
    .requiredOption('--sector <slug>', 'consumer sector slug, or headline')
    .addOption(
      new Option('--cadence <cadence>', 'weekly or daily').choices(['weekly', 'daily']).makeOptionMandatory(),
    )
    .requiredOption('--period-end <date>', 'end of the period (a Sunday for weekly), YYYY-MM-DD', dayOption)
    .action(async (o) =>
      withContext(async (ctx) => {
        const outcomes = await publishCells(ctx, {
          cadence: o.cadence,
          periodEnds: [o.periodEnd],
          sectors: [o.sector],
        });
        failOnClosed(outcomes);
        output.result(outcomes, () => summary(outcomes));
        failOnRefusal(outcomes);
      }),
    );
  tacsi
    .command('notice')
    .description('announce a methodology notice to subscribers, ahead of the day it takes effect')
    .requiredOption('--effective <date>', 'the day it takes effect (after today), YYYY-MM-DD', dayOption)
    .requiredOption('--title <text>', 'one line')
    .requiredOption('--detail <text>', 'what changes and why')
    .option('--methodology <version>', 'the methodology it concerns, e.g. tacsi-m3')
    .action(async (o) =>
      withContext(async (ctx) => {
        const id = await announceNotice(
          ctx.db,
          {
            title: o.title,
            detail: o.detail,
            effectiveOn: o.effective,
            methodologyVersion: o.methodology ?? null,
          },
          ctx.now(),
        );
        output.result({ id, effectiveOn: o.effective }, () => `notice ${id} takes effect on ${o.effective}`);
      }),
    );
  tacsi
    .command('correct')
    .description(
      'publish a corrected vintage of one published tacsi-m2 cell with its reason (charged like a release; never an update)',
    )
    .requiredOption('--sector <slug>', 'consumer sector slug, or headline')
    .addOption(
      new Option('--cadence <cadence>', 'weekly or daily').choices(['weekly', 'daily']).default('weekly'),
    )
    .requiredOption('--period-end <date>', 'end of the period (a Sunday for weekly), YYYY-MM-DD', dayOption)
    .requiredOption('--reason <text>', 'why the cell is corrected (published in the corrections feed)')
    .action(async (o) =>
      withContext(async (ctx) => {
        const corrections = await correctCell(ctx, {
          sector: o.sector,
          cadence: o.cadence,
          periodEnd: o.periodEnd,
          reason: o.reason,
        });
        output.result(corrections, () => correctionSummary(corrections));
      }),
    );
  tacsi
    .command('backfill')
    .description('publish the weekly archive and the recent daily cells (idempotent)')
    .option('--weeks <n>', 'completed weeks, ending last Sunday', count, 104)
    .option('--days <n>', 'completed days, ending yesterday', count, 60)
    .option('--sector <slug>', 'one consumer sector (or headline); default all and the headline')
    .action(async (o) =>
      withContext(async (ctx) => {
        const outcomes = await backfill(ctx, { weeks: o.weeks, days: o.days, sector: o.sector ?? null });
        output.result(outcomes, () => summary(outcomes));
        failOnRefusal(outcomes);
      }),
    );
};

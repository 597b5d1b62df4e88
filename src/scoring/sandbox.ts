// Sandbox: two years of stored daily scores for every workspace with metric history, so score,
// history, exports and TACSI have data (the audits' sandbox adds completed audits after TACSI has
// published). Idempotent: workspaces that already have daily scores are skipped.
//
// Every workspace gets the index formula's rows (what TACSI publishes from); the current formula's
// rows go to the workspaces people use (the manifest's), not to the 500-odd sector brands that exist
// to fill TACSI's cohorts and that no key reads: formula v3 scores a day about 15x slower than v2, and
// two years of v3 for every sector brand would take the demo from about a minute to about twenty.
// `brandhealth scores recompute` fills any workspace's current-formula history on demand.
import type { AppContext } from '../context.ts';
import type { SandboxExtension } from '../domain-module.ts';
import { snapshotsByWorkspace, workspacesWithoutDailyScores, writeNewDailyScores } from './bulk-io.ts';
import { computeDailyScores, currentRows, indexRows, type DailyScoreRow } from './daily-scores.ts';
import { utcDay } from '../core/days.ts';
import { progress, stopwatch } from '../infra/wall-clock.ts';

/**
 * Computes and stores the daily score series of every workspace that has snapshots and no scores: the
 * index formula's for all, the current formula's too for those in `shown` (every workspace when absent).
 */
export async function backfillDailyScores(
  ctx: AppContext,
  log: (line: string) => void,
  shown?: ReadonlySet<string>,
): Promise<number> {
  const watch = stopwatch();
  const today = utcDay(ctx.now());
  const todo = await workspacesWithoutDailyScores(ctx);
  let pending: DailyScoreRow[] = [];
  let written = 0;
  let withCurrent = 0;
  let scored = 0;
  const shownProgress = progress(log, 'scores', todo.length, 'workspaces');
  // Workspaces are read in slices so memory stays bounded however large the sandbox is.
  for (let i = 0; i < todo.length; i += 100) {
    for await (const [id, snapshots] of snapshotsByWorkspace(ctx, todo.slice(i, i + 100))) {
      const first = snapshots[0]?.day;
      const last = snapshots.at(-1)?.day;
      if (!first || !last) continue;
      const to = last < today ? last : today;
      const current = !shown || shown.has(id);
      if (current) withCurrent++;
      pending.push(
        ...(current
          ? computeDailyScores(id, snapshots, first, to)
          : indexRows(id, snapshots, first, to, null)),
      );
      shownProgress.done(++scored);
    }
    await writeNewDailyScores(ctx, pending);
    written += currentRows(pending);
    pending = [];
  }
  log(
    `scores: ${written} current-formula daily scores for ${withCurrent} of ${todo.length} workspaces (index rows for all) in ${watch.elapsed()}`,
  );
  return written;
}

export const scoringSandbox: SandboxExtension = {
  name: 'scores',
  async run(ctx, manifest, log) {
    await backfillDailyScores(ctx, log, new Set(Object.values(manifest.workspaces).flat()));
  },
};

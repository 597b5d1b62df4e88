// Sandbox: two years of stored daily scores for every workspace with metric history, so score,
// history, exports and TACSI have data (the audits' sandbox adds completed audits after TACSI has
// published). Idempotent: workspaces that already have daily scores are skipped.
import type { AppContext } from '../context.ts';
import type { SandboxExtension } from '../domain-module.ts';
import { snapshotsByWorkspace, workspacesWithoutDailyScores, writeNewDailyScores } from './bulk-io.ts';
import { computeDailyScores, type DailyScoreRow } from './daily-scores.ts';
import { utcDay } from '../core/days.ts';
import { stopwatch } from '../infra/wall-clock.ts';

/** Computes and stores the daily score series of every workspace that has snapshots and no scores. */
export async function backfillDailyScores(ctx: AppContext, log: (line: string) => void): Promise<number> {
  const watch = stopwatch();
  const today = utcDay(ctx.now());
  const todo = await workspacesWithoutDailyScores(ctx);
  let pending: DailyScoreRow[] = [];
  let written = 0;
  // Workspaces are read in slices so memory stays bounded however large the sandbox is.
  for (let i = 0; i < todo.length; i += 100) {
    for await (const [id, snapshots] of snapshotsByWorkspace(ctx, todo.slice(i, i + 100))) {
      const first = snapshots[0]?.day;
      const last = snapshots.at(-1)?.day;
      if (!first || !last) continue;
      pending.push(...computeDailyScores(id, snapshots, first, last < today ? last : today));
    }
    await writeNewDailyScores(ctx, pending);
    written += pending.length;
    pending = [];
  }
  log(`scores: ${written} daily scores for ${todo.length} workspaces in ${watch.elapsed()}`);
  return written;
}

export const scoringSandbox: SandboxExtension = {
  name: 'scores',
  async run(ctx, _manifest, log) {
    await backfillDailyScores(ctx, log);
  },
};

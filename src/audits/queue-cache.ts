import type { AppContext } from '../context.ts';

const warmed = new WeakMap<AppContext, Set<string>>();

/**
 * pg-boss looks a queue up (and caches it) on its first send. Queues created after pg-boss
 * started are not cached yet, and on PGlite that lookup, made on pg-boss's own handle to the
 * single connection, waits forever behind the Kysely transaction that is sending. So the
 * queues a transaction will send to are looked up once beforehand, outside any transaction.
 */
export async function warmQueues(ctx: AppContext, names: readonly string[]): Promise<void> {
  let done = warmed.get(ctx);
  if (!done) warmed.set(ctx, (done = new Set()));
  for (const name of names) {
    if (done.has(name)) continue;
    // Any call that goes through the queue cache will do; an id that cannot exist reads nothing.
    await ctx.jobs.boss.findJobs(name, { id: '00000000-0000-0000-0000-000000000000' });
    done.add(name);
  }
}

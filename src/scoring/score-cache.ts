import type { AppContext } from '../context.ts';
import { NotifiedCache } from '../infra/notified-cache.ts';
import { stateSlot } from '../infra/state.ts';

/** Sent by the triggers of migration 0062 with a workspace id, or '*' for every workspace. */
export const SCORE_CHANNEL = 'score_changed';

/**
 * GET /v1/score answers, serialized, per requested workspace and then per (key owner, plan,
 * include_pillars, UTC day) — the key owner first of all, so an answer is only ever found again
 * by a key of the same tenancy. Everything the answer is computed from notifies on change (see
 * migration 0062); the mechanism (listening, reads in flight, the TTL) is src/infra/notified-cache.ts.
 */
export class ScoreCache extends NotifiedCache {
  constructor(ttlMs: number, maxEntries: number) {
    super({ channel: SCORE_CHANNEL, ttlMs, maxWeight: maxEntries, weigh: () => 1 });
  }
}

const SCORE_CACHE = stateSlot('scoring.score-cache', () => ({ cache: null as ScoreCache | null }));

/** This service's score cache, configured by SCORE_CACHE_TTL_MS and SCORE_CACHE_ENTRIES. */
export function scoreCache(ctx: Pick<AppContext, 'state' | 'config'>): ScoreCache {
  const slot = ctx.state.get(SCORE_CACHE);
  slot.cache ??= new ScoreCache(ctx.config.scoreCacheTtlMs, ctx.config.scoreCacheEntries);
  return slot.cache;
}

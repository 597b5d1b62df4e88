import type { AppContext } from '../context.ts';
import { NotifiedCache } from '../infra/notified-cache.ts';
import { stateSlot } from '../infra/state.ts';

/** Sent by the triggers of migration 0063 with a key owner's workspace id, or '*' for every one. */
export const EXPORT_CHANNEL = 'export_changed';

/**
 * GET /v1/export/scores pages as UTF-8 bytes, per key owner (the tenant: a page is only ever found
 * again under the owner that read it) and then per (limit, since). A page reads only score_log rows
 * and workspaces, and every write to either notifies the owners it can show in (migration 0063); the
 * page does not depend on the clock. Bounded by bytes (EXPORT_CACHE_MB): a 1,000-row page is ~265 KB.
 */
export function exportCache(ctx: Pick<AppContext, 'state' | 'config'>): NotifiedCache {
  const slot = ctx.state.get(EXPORT_CACHE);
  slot.cache ??= new NotifiedCache({
    channel: EXPORT_CHANNEL,
    ttlMs: ctx.config.exportCacheTtlMs,
    maxWeight: ctx.config.exportCacheMb * 1024 * 1024,
    weigh: (body) => body.length,
  });
  return slot.cache;
}

const EXPORT_CACHE = stateSlot('exports.export-cache', () => ({ cache: null as NotifiedCache | null }));

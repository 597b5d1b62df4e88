import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { usingPostgres } from '../helpers/database.ts';

// A wrong secret for an existing key id and a key id that was never issued must cost the same,
// or response times tell which key ids exist. Same method as tacsi-timing.test.ts: interleaved
// rounds in random order, medians compared with a generous tolerance.
const ROUNDS = 300;
const WARMUP = 30;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2;
};

// Moved from the main suite: timing comparisons need the machine to themselves (faults run one file at
// a time). On PostgreSQL runs, the embedded path is measured too.
const kinds = usingPostgres() ? (['postgres', 'pglite'] as const) : (['pglite'] as const);

describe.each(kinds)('API key verification timing on %s', (kind) => {
  const services = new Map<number, { t: TestService; cases: Array<{ reason: string; token: string }> }>();

  beforeAll(async () => {
    for (const ttl of [0, 60_000]) {
      const t = await startTestService({
        authCacheTtlMs: ttl,
        ...(kind === 'pglite' ? { databaseUrl: null } : {}),
      });
      const { key } = await workspaceWithKey(t.db, { plan: 'pro' });
      const body = key.slice('bh_live_'.length, 'bh_live_'.length + 26);
      // Same length and shape for both: only whether the id exists differs.
      const wrongSecret = `bh_live_${body}_${'B'.repeat(43)}`;
      const unknownId = `bh_live_01ABCDEFGHJKMNPQRSTVWXYZ01_${'B'.repeat(43)}`;
      services.set(ttl, {
        t,
        cases: [
          { reason: 'wrong secret', token: wrongSecret },
          { reason: 'unknown key id', token: unknownId },
        ],
      });
    }
  });
  afterAll(async () => {
    for (const { t } of services.values()) await t.close();
  });

  it.each([0, 60_000])(
    'wrong secret and unknown key id take the same time (cache TTL %i ms)',
    async (ttl) => {
      const { t, cases } = services.get(ttl)!;
      const samples = new Map<string, number[]>(cases.map((c) => [c.reason, []]));
      for (let round = 0; round < ROUNDS + WARMUP; round++) {
        for (const c of [...cases].sort(() => Math.random() - 0.5)) {
          const start = process.hrtime.bigint();
          const res = await t.request({
            method: 'GET',
            url: '/v1/workspace',
            headers: { authorization: `Bearer ${c.token}` },
            // An address per round: one address would reach the per-address limit of requests
            // without a valid key (auth-plugin.ts), which is not what this measures.
            remoteAddress: `10.7.${round >> 8}.${round & 255}`,
          });
          const micros = Number(process.hrtime.bigint() - start) / 1000;
          expect(res.statusCode).toBe(401);
          if (round >= WARMUP) samples.get(c.reason)!.push(micros);
        }
      }
      const medians = Object.fromEntries(
        [...samples].map(([reason, xs]) => [reason, Math.round(median(xs))]),
      );
      const all = median([...samples.values()].flat());
      // A database round trip on one path only costs far more than 20% of a 401.
      const tolerance = Math.max(0.2 * all, 100);
      const [a, b] = Object.values(medians) as [number, number];
      expect(Math.abs(a - b), JSON.stringify({ all, medians })).toBeLessThanOrEqual(tolerance);
    },
  );
});

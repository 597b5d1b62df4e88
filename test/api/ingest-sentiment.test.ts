import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import { importMetrics } from '../../src/ingest/import-file.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => t?.close());

describe('imported texts are classified by the default sentiment classifier', () => {
  it('counts sarcastic complaints as negative and does not count non-English text', async () => {
    const ws = await createWorkspace(t.db, { name: 'Sarcasm', plan: 'pro' });
    const row = {
      workspace_id: ws.id,
      platform: 'twitter',
      day: '2025-03-01',
      followers: 500,
      mentions: 6,
      texts: [
        'great, another price increase 🙃',
        'love how my package got lost again. thanks a lot',
        'still waiting for my order, 3 weeks now',
        'Obsessed with the new collection 😍',
        'Pésima atención al cliente, no vuelvo a comprar',
        'Love the food but the service was painfully slow',
      ],
    };
    const report = await importMetrics(t.ctx, JSON.stringify(row), 'jsonl');
    expect(report).toMatchObject({ committed: true, imported: 1, rejected: [] });
    const stored = await t.db
      .selectFrom('metric_snapshots')
      .select(['sentiment_positive', 'sentiment_neutral', 'sentiment_negative'])
      .where('workspace_id', '=', ws.id)
      .executeTakeFirstOrThrow();
    // v1 stored 4 positive, 2 neutral, 0 negative: the sarcasm and the wait as praise, the
    // Spanish complaint as neutral. Now mixed counts as neutral and Spanish is not counted.
    expect(stored).toEqual({ sentiment_positive: 1, sentiment_neutral: 1, sentiment_negative: 3 });
  });
});

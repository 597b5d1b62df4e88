import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import { importMetrics } from '../../src/ingest/import-file.ts';
import { defaultModel, multilingualModel } from '../../src/scoring/sentiment/index.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => t?.close());

const SENTIMENT = [
  'sentiment_positive',
  'sentiment_neutral',
  'sentiment_negative',
  'sentiment_mixed',
  'sentiment_unscored',
  'sentiment_confidence',
  'sentiment_model',
] as const;

const stored = (workspaceId: string) =>
  t.db
    .selectFrom('metric_snapshots')
    .select(SENTIMENT)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();

describe('imported texts are classified by the default sentiment classifier', () => {
  it('counts sarcastic complaints as negative and stores mixed, unscored, confidence and model', async () => {
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
        'Servizio pessimo, non comprerò mai più da voi',
        'Love the food but the service was painfully slow',
        '   ',
      ],
    };
    const report = await importMetrics(t.ctx, JSON.stringify(row), 'jsonl');
    expect(report).toMatchObject({ committed: true, imported: 1, rejected: [] });
    // v1 stored 4 positive, 2 neutral, 0 negative: the sarcasm and the wait as praise, the
    // Spanish complaint as neutral. Now the Spanish one is negative (the multilingual model), the
    // Italian one unscored (never judged), the mixed one apart from neutral, and an empty text not
    // at all.
    const s = await stored(ws.id);
    expect(s).toMatchObject({
      sentiment_positive: 1,
      sentiment_neutral: 0,
      sentiment_negative: 4,
      sentiment_mixed: 1,
      sentiment_unscored: 1,
      sentiment_model: `brand-lex-ml@${multilingualModel.version}+brand-lr@${defaultModel.version}`,
    });
    expect(s.sentiment_confidence).toBeGreaterThan(0.4);
    expect(s.sentiment_confidence).toBeLessThanOrEqual(1);
  });

  it('scores a mixed comment as a neutral one, and counts given directly carry no model', async () => {
    const day = { platform: 'instagram', day: '2025-03-01', followers: 2000, comments: 4, posts: 1 };
    const given = await createWorkspace(t.db, { name: 'Given', plan: 'pro' });
    const mixed = await createWorkspace(t.db, { name: 'Mixed', plan: 'pro' });
    const lines = [
      { workspace_id: given.id, ...day, sentiment_positive: 2, sentiment_neutral: 2 },
      { workspace_id: mixed.id, ...day, sentiment_positive: 2, sentiment_neutral: 1, sentiment_mixed: 1 },
    ];
    const report = await importMetrics(t.ctx, lines.map((l) => JSON.stringify(l)).join('\n'), 'jsonl');
    expect(report).toMatchObject({ committed: true, imported: 2, rejected: [] });
    expect(await stored(given.id)).toMatchObject({ sentiment_model: '', sentiment_confidence: 0 });
    const scores = async (workspaceId: string) =>
      t.db
        .selectFrom('daily_scores')
        .select(['day', 'score', 'sentiment', 'formula_version'])
        .where('workspace_id', '=', workspaceId)
        .orderBy('day')
        .orderBy('formula_version')
        .execute();
    const a = await scores(given.id);
    expect(a.length).toBeGreaterThan(0);
    expect(await scores(mixed.id)).toEqual(a);
  });

  it('refuses counts together with texts, and a model name outside its pattern', async () => {
    const base = { workspace_id: 'ws_x', platform: 'twitter', day: '2025-03-01', followers: 5 };
    const both = await importMetrics(
      t.ctx,
      JSON.stringify({ ...base, texts: ['hi'], sentiment_model: 'mine@1' }),
      'jsonl',
    );
    expect(both.rejected[0]?.reason).toBe('give sentiment counts or texts to classify, not both');
    const bad = await importMetrics(t.ctx, JSON.stringify({ ...base, sentiment_model: 'a,b' }), 'jsonl');
    expect(bad.rejected[0]?.reason).toMatch(/^sentiment_model must be/);
  });
});

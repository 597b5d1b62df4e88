// Calls written as the OpenAPI document describes them, against a client generated from it
// (openapi-typescript -> sdk/src/schema.d.ts, kept equal to the served document by
// test/sdk/schema-current.test.ts) on openapi-fetch. Never run: `npm run typecheck` compiles it, so a
// document that marks an optional input required, or types an answer wrongly, fails CI. Each
// `@ts-expect-error` is a call the document must refuse (the directive itself fails once it compiles).
import createClient from 'openapi-fetch';
import type { components, paths } from '../../sdk/src/schema.d.ts';

type Grade = components['schemas']['Score']['grade'];
// JSON answers (the CSV representations, Accept: text/csv, are for spreadsheets, not typed clients).
const client = createClient<paths, `${string}/${string}json`>({ baseUrl: 'http://127.0.0.1:3000' });

export async function scoreCalls(): Promise<Grade[]> {
  // Every query parameter of GET /v1/score is optional: none, one, or both.
  const plain = await client.GET('/v1/score');
  const withPillars = await client.GET('/v1/score', { params: { query: { include_pillars: true } } });
  await client.GET('/v1/score', { params: { query: { workspace_id: 'ws_1', include_pillars: false } } });
  const grades: Grade[] = [];
  if (plain.data) grades.push(plain.data.grade);
  if (withPillars.data?.pillars) {
    const reach: number = withPillars.data.pillars.reach;
    void reach;
  }
  // @ts-expect-error grade is an enum, not any string
  const wrong: Grade = 'excellent';
  void wrong;
  // @ts-expect-error include_pillars is a boolean
  await client.GET('/v1/score', { params: { query: { include_pillars: 'yes' } } });

  await client.GET('/v1/score/history');
  const history = await client.GET('/v1/score/history', {
    params: { query: { start_date: '2030-01-01', end_date: '2030-03-31', granularity: 'weekly' } },
  });
  for (const point of history.data?.data ?? []) grades.push(point.score > 70 ? 'strong' : 'weak');
  return grades;
}

export async function auditCalls(): Promise<void> {
  // The whole body of POST /v1/audit/run is optional.
  const started = await client.POST('/v1/audit/run');
  await client.POST('/v1/audit/run', { body: {} });
  await client.POST('/v1/audit/run', {
    body: { platforms: ['instagram', 'youtube'], lookback_days: 30 },
    headers: { 'Idempotency-Key': 'order-4711' },
  });
  // @ts-expect-error lookback_days is a number of days
  await client.POST('/v1/audit/run', { body: { lookback_days: '30' } });
  if (!started.data) return;
  const auditId: string = started.data.audit_id;
  const result = await client.GET('/v1/audit/{audit_id}', { params: { path: { audit_id: auditId } } });
  if (result.data?.status === 'completed') {
    const grade: Grade = result.data.grade;
    void grade;
  }
  if (result.error) {
    // Errors are problem+json: a typed Problem.
    const problem: { title: string; status: number } = result.error;
    void problem;
  }
}

export async function campaignCalls(): Promise<string[]> {
  // duration_weeks has a default, so only name and start_date are needed.
  const created = await client.POST('/v1/campaigns', { body: { name: 'Spring', start_date: '2030-03-02' } });
  // @ts-expect-error start_date is required
  await client.POST('/v1/campaigns', { body: { name: 'Spring' } });
  const ids: string[] = created.data ? [created.data.id] : [];
  // Offset paging: limit and offset are optional.
  let offset = 0;
  for (;;) {
    const page = await client.GET('/v1/campaigns', {
      params: { query: { limit: 50, offset, status: 'active' } },
    });
    if (!page.data) break;
    ids.push(...page.data.campaigns.map((c) => c.id));
    offset += page.data.campaigns.length;
    if (page.data.campaigns.length === 0 || offset >= page.data.total) break;
  }
  await client.GET('/v1/campaigns');
  if (ids[0]) {
    await client.POST('/v1/campaigns/{campaign_id}/cancel', { params: { path: { campaign_id: ids[0] } } });
  }
  return ids;
}

export async function exportCalls(): Promise<number> {
  const clients = await client.GET('/v1/export/clients');
  const creators = await client.GET('/v1/export/creators');
  await client.GET('/v1/export/scores');
  const scores = await client.GET('/v1/export/scores', {
    params: { query: { limit: 1000, since: '2030-01-01T00:00:00Z' } },
  });
  const nullableGrade: Grade | null = clients.data?.clients[0]?.grade ?? null;
  void nullableGrade;
  return (clients.data?.count ?? 0) + (creators.data?.count ?? 0) + (scores.data?.scores.length ?? 0);
}

export async function tacsiCalls(): Promise<number[]> {
  const values: number[] = [];
  // The history cursor: follow nextBefore while hasMore.
  let before: string | undefined;
  for (;;) {
    const page = await client.GET('/v1/tacsi/history', {
      params: { query: { sector: 'food-beverage', ...(before ? { before } : {}) } },
    });
    if (!page.data) break;
    values.push(...page.data.rows.map((cell) => cell.indexValue));
    if (!page.data.hasMore || !page.data.nextBefore) break;
    before = page.data.nextBefore;
  }
  await client.GET('/v1/tacsi/history', {
    params: { query: { sector: 'fashion', from: '2030-01-01', to: '2030-06-30' } },
  });
  // @ts-expect-error sector is required
  await client.GET('/v1/tacsi/history', { params: { query: {} } });
  const weekly = await client.GET('/v1/tacsi/weekly', {
    params: { query: { sector: 'fashion' }, header: { 'If-None-Match': '"abc"' } },
  });
  if (weekly.data) values.push(weekly.data.indexValue);
  await client.GET('/v1/tacsi/pillars', { params: { query: { sector: 'fashion', pillar: 'reach' } } });
  await client.GET('/v1/tacsi/daily', { params: { query: { sector: 'fashion' } } });
  await client.GET('/v1/tacsi/methodology');
  return values;
}

export async function platformAndWebhookCalls(): Promise<void> {
  await client.GET('/v1/workspace');
  await client.GET('/v1/platforms');
  await client.POST('/v1/platforms/{platform}/connect', { params: { path: { platform: 'tiktok' } } });
  await client.POST('/v1/platforms/{platform}/sync', { params: { path: { platform: 'instagram' } } });
  await client.DELETE('/v1/platforms/{platform}', { params: { path: { platform: 'youtube' } } });
  await client.POST('/v1/studio/score', {
    body: { content_type: 'text', content: 'New menu, same love.', platform: 'instagram' },
  });
  const hook = await client.POST('/v1/webhooks', {
    body: { url: 'https://hooks.example.com/brand-health', events: ['audit.completed', 'score.changed'] },
  });
  await client.GET('/v1/webhooks');
  if (hook.data) {
    const webhook_id = hook.data.id;
    await client.GET('/v1/webhooks/{webhook_id}/deliveries', { params: { path: { webhook_id } } });
    await client.GET('/v1/webhooks/{webhook_id}/deliveries', {
      params: { path: { webhook_id }, query: { limit: 20, offset: 20 } },
    });
    await client.DELETE('/v1/webhooks/{webhook_id}', { params: { path: { webhook_id } } });
  }
}

export async function csvCalls(): Promise<string> {
  // The CSV representation of an export is documented as text.
  const csv = createClient<paths, 'text/csv'>({ baseUrl: 'http://127.0.0.1:3000' });
  const { data } = await csv.GET('/v1/export/clients', { headers: { Accept: 'text/csv' }, parseAs: 'text' });
  const history = await csv.GET('/v1/tacsi/history', {
    params: { query: { sector: 'fashion' } },
    headers: { Accept: 'text/csv' },
    parseAs: 'text',
  });
  const next: string | null = history.response.headers.get('link');
  return `${data ?? ''}${history.data ?? ''}${next ?? ''}`;
}

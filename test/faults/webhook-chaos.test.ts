import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prng } from '../helpers/synthetic.ts';
import { webhookDeliverJob } from '../../src/webhooks/jobs.ts';
import { configureWebhooks } from '../../src/webhooks/settings.ts';
import { emit } from '../api/webhooks-receiver.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { startChaosReceiver, type Answer, type ChaosReceiver } from './chaos-receiver.ts';
import { until } from './support.ts';
import type { EventType } from '../../src/core/catalog.ts';

// A receiver that fails 60% of attempts (5xx/429), times out on 10% and answers 2xx otherwise,
// plus one endpoint that answers 410 Gone. Which attempt fails comes from a seeded PRNG per
// (endpoint, event), so every run sees the same sequence whatever order deliveries run in.
const EVENTS = 8;
const LIVE_PATHS = ['/live-a', '/live-b', '/live-c'];
const GONE_PATH = '/gone';
const RETRY_LIMIT = 12; // 13 attempts, the production count (docs/webhooks.md)
const ATTEMPT_TIMEOUT_MS = 1000;
const FAILURES = [500, 502, 503, 429];
const TYPES: EventType[] = ['audit.completed', 'score.changed', 'campaign.phase_changed'];

describe('webhook delivery against a failing, slow and gone receiver', () => {
  let t: TestService;
  let rx: ChaosReceiver;
  const eventIndex = new Map<string, number>();

  /**
   * The n-th answer of an endpoint to an event. The last attempt the service makes always
   * succeeds: the retry budget is finite by design, and the case is about the service never
   * losing or corrupting a delivery while the budget lasts, not about a receiver that never
   * comes back.
   */
  async function decide(path: string, msgId: string, attempt: number): Promise<Answer> {
    if (path === GONE_PATH) return { kind: 'status', status: 410 };
    // The event id is recorded right after emitting, long before a delivery can arrive.
    const index = await until('the event to be known', () => eventIndex.get(msgId), {
      timeoutMs: 5000,
      intervalMs: 5,
    });
    if (attempt >= RETRY_LIMIT + 1) return { kind: 'status', status: 200 };
    const rng = prng(1_000 * (LIVE_PATHS.indexOf(path) + 1) + index);
    let roll = 0;
    for (let i = 0; i < attempt; i++) roll = rng();
    if (roll < 0.6) return { kind: 'status', status: FAILURES[Math.floor(roll * 10) % FAILURES.length]! };
    if (roll < 0.7) return { kind: 'timeout' };
    return { kind: 'status', status: roll < 0.85 ? 200 : 204 };
  }

  beforeAll(async () => {
    rx = await startChaosReceiver(decide, ATTEMPT_TIMEOUT_MS * 3);
    t = await startTestService({ allowLoopbackFetch: true, runWorkers: true });
    configureWebhooks(t.ctx, {
      ca: rx.cert,
      attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
    });
    configureWebhooks(t.ctx, {
      schedule: { attempts: RETRY_LIMIT + 1, delaySeconds: 0, maxDelaySeconds: 0, jitter: false },
    });
    await t.service.startWorkers();
  });
  afterAll(async () => {
    await t?.close();
    await rx?.close();
  });

  it('delivers every event to every live endpoint, signed, with stable ids, and disables the 410 endpoint', async () => {
    const { key, workspace } = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' });
    const hooks = new Map<string, { id: string; secret: string }>();
    for (const path of [...LIVE_PATHS, GONE_PATH]) {
      const res = await t.request({
        method: 'POST',
        url: '/v1/webhooks',
        key,
        payload: { url: rx.url(path), events: TYPES },
      });
      expect(res.statusCode).toBe(200);
      hooks.set(path, res.json());
    }

    const events: Array<{ id: string; type: EventType; data: Record<string, unknown> }> = [];
    for (let i = 0; i < EVENTS; i++) {
      const type = TYPES[i % TYPES.length]!;
      const data = { n: i, workspace_id: workspace.id, note: `event ${i} é ✓` };
      const id = await emit(t.ctx, workspace.id, type, data);
      eventIndex.set(id, i);
      events.push({ id, type, data });
    }

    const liveIds = LIVE_PATHS.map((p) => hooks.get(p)!.id);
    await until(
      'every live delivery to succeed',
      async () => {
        const rows = await t.db
          .selectFrom('webhook_deliveries')
          .select(['status'])
          .where('webhook_id', 'in', liveIds)
          .execute();
        return rows.length === EVENTS * LIVE_PATHS.length && rows.every((r) => r.status === 'succeeded')
          ? true
          : undefined;
      },
      { timeoutMs: 150_000, intervalMs: 250 },
    );
    // Every delivery job has finished: no late attempt can still arrive.
    await until(
      'the delivery queue to drain',
      async () => {
        const jobs = await t.ctx.jobs.boss.findJobs(webhookDeliverJob.queue, {});
        return jobs.every((j) => j.state === 'completed' || j.state === 'failed') ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );

    // Each live endpoint got each event at least once and acknowledged it exactly once; every
    // request (duplicates included) carries the event id as webhook-id, a valid signature and
    // the event itself.
    let duplicates = 0;
    for (const path of LIVE_PATHS) {
      const verifier = new Webhook(hooks.get(path)!.secret);
      for (const event of events) {
        const got = rx.requests.filter((r) => r.path === path && r.msgId === event.id);
        expect(got.length, `${path} ${event.id}`).toBeGreaterThanOrEqual(1);
        duplicates += got.length - 1;
        const acknowledged = got.filter((r) => r.answer.kind === 'status' && r.answer.status < 300);
        expect(acknowledged, `${path} ${event.id} acknowledged`).toHaveLength(1);
        expect(got.at(-1)).toBe(acknowledged[0]); // nothing after the success
        for (const r of got) {
          expect(r.headers['webhook-id']).toBe(event.id);
          const payload = verifier.verify(r.body, r.headers) as Record<string, unknown>;
          expect(payload).toEqual({
            id: event.id,
            type: event.type,
            created_at: expect.any(String),
            data: event.data,
          });
        }
      }
    }
    expect(duplicates, 'the receiver failed often enough to cause retries').toBeGreaterThan(EVENTS);
    expect(rx.requests.some((r) => r.answer.kind === 'timeout')).toBe(true);

    // The bookkeeping agrees with what the receiver saw: every request received was counted as an
    // attempt (an attempt can exceed them only when a connection timed out before arriving).
    const rows = await t.db
      .selectFrom('webhook_deliveries')
      .select(['webhook_id', 'event_id', 'status', 'attempts'])
      .where('webhook_id', 'in', liveIds)
      .execute();
    for (const row of rows) {
      const path = LIVE_PATHS[liveIds.indexOf(row.webhook_id!)]!;
      const seen = rx.requests.filter((r) => r.path === path && r.msgId === row.event_id).length;
      expect(row.attempts, `${path} ${row.event_id}`).toBeGreaterThanOrEqual(seen);
    }

    // 410 Gone: the webhook is disabled and never retried; each event reached it at most once
    // (deliveries already queued when it was disabled are dropped without a request).
    const gone = hooks.get(GONE_PATH)!;
    const listed = await t.request({ method: 'GET', url: '/v1/webhooks', key });
    expect(listed.json().webhooks.find((w: { id: string }) => w.id === gone.id)).toMatchObject({
      status: 'disabled',
      disabled_reason: expect.stringMatching(/410 Gone/),
    });
    const goneRequests = rx.requests.filter((r) => r.path === GONE_PATH);
    expect(goneRequests.length).toBeGreaterThanOrEqual(1);
    expect(new Set(goneRequests.map((r) => r.msgId)).size).toBe(goneRequests.length);
    for (const r of goneRequests) expect(new Webhook(gone.secret).verify(r.body, r.headers)).toBeTruthy();
    console.info(
      `webhook chaos: ${rx.requests.length} requests for ${EVENTS * LIVE_PATHS.length} live deliveries ` +
        `(${duplicates} duplicates), ${goneRequests.length} to the 410 endpoint`,
    );
  });
});

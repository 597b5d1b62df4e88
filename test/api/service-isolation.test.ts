import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedCache, notePublication } from '../../src/tacsi/feed-cache.ts';
import { webhookDeliverJob } from '../../src/webhooks/jobs.ts';
import { configureWebhooks, webhookSettings } from '../../src/webhooks/settings.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

// Two services in one process (as in tests and the bench) share no per-service state: each keeps
// its feed cache, webhook settings and job retry policies in its own context.
let a: TestService;
let b: TestService;
beforeAll(async () => {
  [a, b] = await Promise.all([startTestService(), startTestService()]);
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

describe('per-service state', () => {
  it('a publication in one service leaves the other service’s TACSI feed cache alone', async () => {
    let builds = 0;
    const build = async () => Buffer.from(JSON.stringify({ n: ++builds }));
    const cachedB = await feedCache(b.ctx).get('weekly:alpha', build);
    const cachedA = await feedCache(a.ctx).get('weekly:alpha', build);
    expect(cachedB!.bytes.toString()).toBe('{"n":1}');
    expect(cachedA!.bytes.toString()).toBe('{"n":2}'); // not B's entry: A has its own cache

    notePublication(a.ctx);
    expect((await feedCache(b.ctx).get('weekly:alpha', build))!.bytes.toString()).toBe('{"n":1}');
    expect((await feedCache(a.ctx).get('weekly:alpha', build))!.bytes.toString()).toBe('{"n":3}');
    expect(builds).toBe(3);
  });

  it('webhook settings and retry policies changed on one service do not reach the other', async () => {
    configureWebhooks(a.ctx, { attemptTimeoutMs: 123 });
    a.ctx.jobs.setRetry(webhookDeliverJob, { retryLimit: 1, retryDelay: 0, retryBackoff: false });
    expect(webhookSettings(a.ctx).attemptTimeoutMs).toBe(123);
    expect(webhookSettings(b.ctx).attemptTimeoutMs).toBe(10_000);
    expect(a.ctx.jobs.retryOf(webhookDeliverJob).retryLimit).toBe(1);
    expect(b.ctx.jobs.retryOf(webhookDeliverJob)).toEqual(webhookDeliverJob.retry);

    // Jobs sent by each service carry that service's policy.
    await webhookDeliverJob.enqueue(a.ctx, { deliveryId: 'whd_a' });
    await webhookDeliverJob.enqueue(b.ctx, { deliveryId: 'whd_b' });
    const [jobA] = await a.ctx.jobs.boss.findJobs(webhookDeliverJob.queue, { data: { deliveryId: 'whd_a' } });
    const [jobB] = await b.ctx.jobs.boss.findJobs(webhookDeliverJob.queue, { data: { deliveryId: 'whd_b' } });
    expect(jobA!.retryLimit).toBe(1);
    expect(jobB!.retryLimit).toBe(webhookDeliverJob.retry.retryLimit);
  });
});

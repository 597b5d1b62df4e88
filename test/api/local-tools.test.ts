import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureWebhooks } from '../../src/webhooks/settings.ts';
import { startLocalTools, type LocalTools } from '../../simulator/local-tools.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { emit, eventually } from './webhooks-receiver.ts';

// The local sandbox (`npm run demo`) runs its service with ALLOW_LOOPBACK_FETCH and serves a webhook
// inspector and sample media on the loopback address (simulator/local-tools.ts): webhooks and studio
// media can be tried on one machine. Loopback may then be reached over plain http; any other host
// stays https only, and without the setting loopback is refused (test/api/webhook-ports.test.ts).
let t: TestService;
let tools: LocalTools;
let key: string;
let workspaceId: string;

beforeAll(async () => {
  tools = await startLocalTools({ port: 0 });
  t = await startTestService({ allowLoopbackFetch: true, runWorkers: true });
  configureWebhooks(t.ctx, { schedule: { attempts: 1, delaySeconds: 0, maxDelaySeconds: 0, jitter: false } });
  await t.service.startWorkers();
  const created = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' });
  key = created.key;
  workspaceId = created.workspace.id;
});
afterAll(async () => {
  await t?.close();
  await tools?.close();
});

const register = (url: string) =>
  t.request({ method: 'POST', url: '/v1/webhooks', key, payload: { url, events: ['audit.completed'] } });

describe('webhooks to the local inspector', () => {
  it('registers an http loopback URL and delivers a signed event the inspector lists', async () => {
    const res = await register(`${tools.url}/webhooks/demo`);
    expect(res.statusCode, res.body).toBe(200);
    const { secret } = res.json();
    const eventId = await emit(t.ctx, workspaceId, 'audit.completed', {
      audit_id: 'aud_local_tools',
      workspace_id: workspaceId,
      imprs_score: 61.2,
      grade: 'strong',
    });
    const delivery = await eventually(async () =>
      tools.webhooks().find((w) => w.headers['webhook-id'] === eventId),
    );
    expect(delivery.path).toBe('/webhooks/demo');
    expect(delivery.body).toMatchObject({ type: 'audit.completed', data: { audit_id: 'aud_local_tools' } });
    // The signature checks out with the secret the API returned (Standard Webhooks).
    const headers = delivery.headers as Record<string, string>;
    expect(() => new Webhook(secret).verify(JSON.stringify(delivery.body), headers)).not.toThrow();

    // The inspector's own listing, as a browser or a program reads it.
    const listed = await fetch(`${tools.url}/webhooks`, { headers: { accept: 'application/json' } });
    expect(
      ((await listed.json()) as { webhooks: { headers: Record<string, string> }[] }).webhooks[0]!.headers[
        'webhook-id'
      ],
    ).toBe(eventId);
    const html = await (await fetch(`${tools.url}/webhooks`)).text();
    expect(html).toContain(eventId);
  });

  it('keeps plain http for loopback only: any other host must still be https', async () => {
    const body = expectProblem(await register('http://93.184.215.14/hook'), 400, 'Invalid URL');
    expect(body.detail).toContain('https');
    expectProblem(await register('http://10.0.0.8/hook'), 400, 'Invalid URL');
  });
});

describe('sample media for the studio', () => {
  const score = (payload: object) => t.request({ method: 'POST', url: '/v1/studio/score', key, payload });

  it('serves real files the studio fetches and measures over loopback http', async () => {
    const portrait = await score({
      content_type: 'image',
      content: `${tools.url}/media/portrait-1080x1350.jpg`,
      platform: 'instagram',
    });
    expect(portrait.statusCode, portrait.body).toBe(200);
    const tiny = await score({
      content_type: 'image',
      content: `${tools.url}/media/tiny-200x200.png`,
      platform: 'instagram',
    });
    expect(tiny.statusCode, tiny.body).toBe(200);
    // A 4:5 full-size portrait suits an Instagram post better than a 200-pixel thumbnail.
    expect(portrait.json().score).toBeGreaterThan(tiny.json().score);
    const video = await score({
      content_type: 'video',
      content: `${tools.url}/media/vertical-1080x1920-30s.mp4`,
      platform: 'tiktok',
    });
    expect(video.statusCode, video.body).toBe(200);
    const index = await (await fetch(`${tools.url}/media/`)).text();
    expect(index).toContain('vertical-1080x1920-30s.mp4');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';

// The first phase of shutdown (SHUTDOWN_DRAIN_MS, src/infra/http/drain.ts) over a real socket:
// still serving, but out of readiness and ending each keep-alive connection after its response.
describe('shutdown drain', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('fails readiness and closes keep-alive connections while still answering requests', async () => {
    const origin = await t.listen();
    const { key } = await workspaceWithKey(t.db, { plan: 'pro' });
    const before = await fetch(`${origin}/readyz`);
    expect(before.status).toBe(200);
    expect(before.headers.get('connection')).toBe('keep-alive');
    await before.text();

    await t.service.drain(0);
    const ready = await fetch(`${origin}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toBe('5');
    expect(ready.headers.get('connection')).toBe('close');
    expect(await ready.json()).toEqual({ status: 'unavailable' });

    const workspace = await fetch(`${origin}/v1/workspace`, { headers: { authorization: `Bearer ${key}` } });
    expect(workspace.status).toBe(200);
    expect(workspace.headers.get('connection')).toBe('close');
    expect(((await workspace.json()) as { plan: string }).plan).toBe('pro');
    const health = await fetch(`${origin}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers.get('connection')).toBe('close');
  });
});

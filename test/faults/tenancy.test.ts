import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/keys.ts';
import { connectPlatform } from '../../src/admin/platforms.ts';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import { runJob, seedMetrics } from '../api/audits.fixtures.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { expectProblemJson } from './support.ts';
import { type Plan, planAtLeast } from '../../src/core/catalog.ts';

// Every tenant of a small sandbox-like setup (a Pro brand, agencies A and B with two clients
// each, an Enterprise brand) tries every other tenant's ids on every route that takes one: all
// answered as not found, nothing of the other tenant in any answer, nothing changed.
interface Tenant {
  name: string;
  id: string;
  plan: Plan;
  handle: string;
  auditId: string;
  campaignId: string | null;
  webhook: { id: string; url: string } | null;
}
interface Caller {
  label: string;
  key: string;
  plan: Plan;
  /** Workspace ids this key may see. */
  sees: Set<string>;
}

let t: TestService;
const tenants: Tenant[] = [];
const callers: Caller[] = [];
const token = randomBytes(4).toString('hex');

beforeAll(async () => {
  t = await startTestService({ allowLoopbackFetch: true }, { AUTH_CACHE_TTL_MS: '5000' });
  const keyFor = async (workspaceId: string) => (await createApiKey(t.db, { workspaceId })).key;
  const request = async (key: string, method: 'GET' | 'POST', url: string, payload?: object) => {
    const res = await t.request({ method, url, key, ...(payload ? { payload } : {}) });
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(200);
    return res.json();
  };

  const add = async (
    label: string,
    plan: Plan,
    options: { agency?: boolean; parent?: Tenant; ownerKey?: string } = {},
  ): Promise<{ tenant: Tenant; key: string }> => {
    const name = `Tenancy ${label} ${token}`;
    const ws = await createWorkspace(t.db, {
      name,
      plan,
      accountType: options.agency ? 'agency' : 'brand',
      parentId: options.parent?.id ?? null,
    });
    const handle = `@tn_${label.toLowerCase().replace(/\W/g, '')}_${token}`;
    await connectPlatform(t.db, { workspaceId: ws.id, platform: 'instagram', handle, followers: 4000 });
    await seedMetrics(t.db, ws.id, { platforms: ['instagram'], days: 30, seed: tenants.length + 1 });
    const key = await keyFor(ws.id);
    // Objects are created the way the owner would: a client's through its agency's key.
    const ownerKey = options.ownerKey ?? key;
    const scoped = options.parent ? { workspace_id: ws.id } : {};
    const auditId = (await request(ownerKey, 'POST', '/v1/audit/run', scoped)).audit_id;
    expect(await runJob(t.ctx, auditId)).toBe('completed');
    const ownerPlan = options.parent?.plan ?? plan;
    const campaignId = planAtLeast(ownerPlan, 'agency')
      ? (
          await request(ownerKey, 'POST', '/v1/campaigns', {
            ...scoped,
            name: `Campaign ${label} ${token}`,
            start_date: '2099-01-05',
          })
        ).id
      : null;
    let webhook: Tenant['webhook'] = null;
    if (!options.parent && planAtLeast(plan, 'agency')) {
      const url = `https://127.0.0.1:9/${label.toLowerCase()}-${token}`;
      webhook = {
        id: (await request(key, 'POST', '/v1/webhooks', { url, events: ['audit.completed'] })).id,
        url,
      };
    }
    const tenant = { name, id: ws.id, plan, handle, auditId, campaignId, webhook };
    tenants.push(tenant);
    return { tenant, key };
  };

  const pro = await add('Pro', 'pro');
  callers.push({ label: 'pro', key: pro.key, plan: 'pro', sees: new Set([pro.tenant.id]) });
  for (const letter of ['A', 'B']) {
    const agency = await add(`Agency ${letter}`, 'agency', { agency: true });
    const c1 = await add(`Client ${letter}1`, 'pro', { parent: agency.tenant, ownerKey: agency.key });
    const c2 = await add(`Client ${letter}2`, 'pro', { parent: agency.tenant, ownerKey: agency.key });
    callers.push({
      label: `agency ${letter}`,
      key: agency.key,
      plan: 'agency',
      sees: new Set([agency.tenant.id, c1.tenant.id, c2.tenant.id]),
    });
    callers.push({ label: `client ${letter}1`, key: c1.key, plan: 'pro', sees: new Set([c1.tenant.id]) });
  }
  const enterprise = await add('Enterprise', 'enterprise');
  callers.push({
    label: 'enterprise',
    key: enterprise.key,
    plan: 'enterprise',
    sees: new Set([enterprise.tenant.id]),
  });
});
afterAll(async () => t?.close());

/** Every string that identifies a tenant: ids of the workspace and its objects, name, handle, webhook URL. */
function identifiers(tenant: Tenant): string[] {
  return [
    tenant.id,
    tenant.name,
    tenant.handle,
    tenant.auditId,
    ...(tenant.campaignId ? [tenant.campaignId] : []),
    ...(tenant.webhook ? [tenant.webhook.id, tenant.webhook.url] : []),
  ];
}

interface Attempt {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  payload?: object;
  /** The foreign value the caller sent (it may be echoed back). */
  sent: string;
  plan: Plan;
}

function attemptsOn(tenant: Tenant): Attempt[] {
  const ws = tenant.id;
  const attempts: Attempt[] = [
    { method: 'GET', url: `/v1/audit/${tenant.auditId}`, sent: tenant.auditId, plan: 'pro' },
    { method: 'GET', url: `/v1/platforms?workspace_id=${ws}`, sent: ws, plan: 'pro' },
    { method: 'POST', url: `/v1/platforms/instagram/sync?workspace_id=${ws}`, sent: ws, plan: 'pro' },
    { method: 'GET', url: `/v1/score?workspace_id=${ws}`, sent: ws, plan: 'pro' },
    { method: 'GET', url: `/v1/score/history?workspace_id=${ws}`, sent: ws, plan: 'pro' },
    { method: 'POST', url: '/v1/audit/run', payload: { workspace_id: ws }, sent: ws, plan: 'pro' },
    { method: 'GET', url: `/v1/campaigns?workspace_id=${ws}`, sent: ws, plan: 'agency' },
    {
      method: 'POST',
      url: '/v1/campaigns',
      payload: { workspace_id: ws, name: 'Intruder', start_date: '2099-01-05' },
      sent: ws,
      plan: 'agency',
    },
  ];
  if (tenant.campaignId) {
    const id = tenant.campaignId;
    attempts.push({ method: 'POST', url: `/v1/campaigns/${id}/cancel`, sent: id, plan: 'agency' });
  }
  if (tenant.webhook) {
    const id = tenant.webhook.id;
    attempts.push(
      { method: 'GET', url: `/v1/webhooks/${id}/deliveries`, sent: id, plan: 'agency' },
      { method: 'DELETE', url: `/v1/webhooks/${id}`, sent: id, plan: 'agency' },
    );
  }
  return attempts;
}

describe('tenancy', () => {
  it("answers every other tenant's ids as not found, without a trace of them", async () => {
    let tried = 0;
    for (const caller of callers) {
      const foreign = tenants.filter((x) => !caller.sees.has(x.id));
      const secrets = foreign.flatMap(identifiers);
      for (const tenant of foreign) {
        for (const attempt of attemptsOn(tenant)) {
          const res = await t.request({
            method: attempt.method,
            url: attempt.url,
            key: caller.key,
            ...(attempt.payload ? { payload: attempt.payload } : {}),
          });
          const where = `${caller.label} ${attempt.method} ${attempt.url} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
          const problem = {
            status: res.statusCode,
            contentType: res.headers['content-type'],
            body: res.json(),
            raw: res.body,
          };
          // A key whose plan is below the route's never gets as far as looking the id up.
          if (planAtLeast(caller.plan, attempt.plan)) expectProblemJson(problem, 404, 'Not Found');
          else expectProblemJson(problem, 403, 'Plan Required');
          const scrubbed = res.body.split(attempt.sent).join('<sent>');
          for (const secret of secrets)
            expect(scrubbed.includes(secret), `${where} leaks "${secret}"`).toBe(false);
          tried++;
        }
      }
    }
    expect(tried).toBeGreaterThan(200);
  });

  it('shows agencies only their own clients in exports and lists', async () => {
    for (const caller of callers.filter((c) => planAtLeast(c.plan, 'agency'))) {
      const secrets = tenants.filter((x) => !caller.sees.has(x.id)).flatMap(identifiers);
      for (const url of [
        '/v1/export/clients',
        '/v1/export/creators',
        '/v1/export/scores',
        '/v1/webhooks',
        '/v1/campaigns',
        '/v1/workspace',
      ]) {
        const res = await t.request({ method: 'GET', url, key: caller.key });
        expect(res.statusCode, `${caller.label} ${url}: ${res.body}`).toBe(200);
        for (const secret of secrets)
          expect(res.body.includes(secret), `${caller.label} ${url} leaks "${secret}"`).toBe(false);
      }
    }
  });

  it('left every object as it was, and each owner still reaches its own', async () => {
    for (const tenant of tenants) {
      const audits = await t.db
        .selectFrom('audits')
        .select(['id', 'status'])
        .where('workspace_id', '=', tenant.id)
        .execute();
      expect(audits).toEqual([{ id: tenant.auditId, status: 'completed' }]);
      const campaigns = await t.db
        .selectFrom('campaigns')
        .select(['id', 'status'])
        .where('workspace_id', '=', tenant.id)
        .execute();
      expect(campaigns).toEqual(tenant.campaignId ? [{ id: tenant.campaignId, status: 'draft' }] : []);
      if (tenant.webhook) {
        const hook = await t.db
          .selectFrom('webhooks')
          .select(['status', 'deleted_at'])
          .where('id', '=', tenant.webhook.id)
          .executeTakeFirstOrThrow();
        expect(hook).toEqual({ status: 'active', deleted_at: null });
      }
    }
    // The ids were real: their owners read them.
    for (const caller of callers) {
      for (const tenant of tenants.filter((x) => caller.sees.has(x.id))) {
        const audit = await t.request({ method: 'GET', url: `/v1/audit/${tenant.auditId}`, key: caller.key });
        expect(audit.statusCode, `${caller.label} own audit`).toBe(200);
        const platforms = await t.request({
          method: 'GET',
          url: `/v1/platforms?workspace_id=${tenant.id}`,
          key: caller.key,
        });
        expect(platforms.statusCode).toBe(200);
        expect(platforms.body).toContain(tenant.handle);
        if (tenant.webhook) {
          const deliveries = await t.request({
            method: 'GET',
            url: `/v1/webhooks/${tenant.webhook.id}/deliveries`,
            key: caller.key,
          });
          expect(deliveries.statusCode).toBe(200);
        }
      }
    }
  });
});

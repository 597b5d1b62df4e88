import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import { recordAudit } from '../../src/audit-log/record.ts';
import { Authenticator } from '../../src/infra/auth/authenticator.ts';
import { purgeExpired } from '../../src/retention/jobs.ts';
import { startSimulator, type Simulator } from '../../simulator/server.ts';
import { utcDay } from '../../src/core/days.ts';
import { connectPlatform } from '../../src/admin/platforms.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { PASSWORD, signedInPerson, type Browser } from '../helpers/people.ts';
import { connectThroughSimulator } from '../helpers/simulator-oauth.ts';

// The audit log through HTTP: every security-relevant action done through the API shows in its
// workspace's log with actor, address, time and target; owners and admins read it (pages, filters,
// CSV), nobody else and no other workspace; keys record their last use; old entries age out.
let sim: Simulator;
let smtp: TestSmtpServer;
let t: TestService;

beforeAll(async () => {
  sim = await startSimulator({ speed: 0, startDay: utcDay(new Date()) });
  smtp = await startSmtpServer();
  t = await startTestService(
    { allowLoopbackFetch: true },
    {
      SIMULATOR_URL: sim.url,
      PUBLIC_URL: 'http://brandhealth.test',
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Brand Health <hello@example.test>',
    },
  );
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
  await sim?.close();
});

interface Entry {
  id: string;
  at: string;
  action: string;
  actor: { kind: string; id: string | null; label: string | null };
  target: string | null;
  detail: string | null;
  address: string | null;
}

async function team(plan: 'pro' | 'agency' = 'agency') {
  const ws = await createWorkspace(t.db, {
    name: `${plan} audit team`,
    plan,
    accountType: plan === 'agency' ? 'agency' : 'brand',
  });
  const owner = await signedInPerson(t, { workspaceId: ws.id, role: 'owner' });
  return { ws, owner };
}

async function log(reader: Browser, query = ''): Promise<Entry[]> {
  const res = await reader.request('GET', `/v1/audit-log?limit=200${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().entries as Entry[];
}

let emails = 0;
const freshEmail = () => `audit${++emails}-${process.pid}@example.test`;

async function inviteToken(email: string): Promise<string> {
  const mail = await smtp.waitFor((m) => m.envelope.to.includes(email));
  return decodeURIComponent(/token=([A-Za-z0-9_%-]+)/.exec(mail.parsed.text ?? '')![1]!);
}

describe('what the log records', () => {
  it('records every listed action done through the API, with actor, address, time and target', async () => {
    const started = Date.now();
    const { ws, owner } = await team();
    const post = (url: string, payload: object) => t.request({ method: 'POST', url, payload });

    // Sign-in failures: a member's (in the workspace's log), an unknown address's (in no workspace's).
    expect(
      (await post('/v1/auth/sign-in', { email: owner.email, password: 'wrong-pass-77' })).statusCode,
    ).toBe(401);
    const stranger = freshEmail();
    expect((await post('/v1/auth/sign-in', { email: stranger, password: 'wrong-pass-77' })).statusCode).toBe(
      401,
    );

    // Members and roles.
    const bo = await signedInPerson(t);
    expect((await owner.request('POST', '/v1/members', { email: bo.email, role: 'member' })).statusCode).toBe(
      201,
    );
    expect((await owner.request('PATCH', `/v1/members/${bo.personId}`, { role: 'admin' })).statusCode).toBe(
      200,
    );

    // Invitations: one accepted (a new account), one revoked.
    const invitee = freshEmail();
    expect(
      (await owner.request('POST', '/v1/invitations', { email: invitee, role: 'viewer' })).statusCode,
    ).toBe(201);
    const accepted = await post('/v1/invitations/accept', {
      token: await inviteToken(invitee),
      name: 'Invited Iris',
      password: PASSWORD,
    });
    expect(accepted.statusCode, accepted.body).toBe(201);
    const revokedInvite = await owner.request('POST', '/v1/invitations', {
      email: freshEmail(),
      role: 'member',
    });
    expect((await owner.request('DELETE', `/v1/invitations/${revokedInvite.json().id}`)).statusCode).toBe(
      200,
    );

    // A key made by a person; the key registers a webhook and connects a platform (the key is the actor).
    const created = await owner.request('POST', '/v1/keys', {
      name: 'automation',
      scopes: ['read', 'write'],
    });
    expect(created.statusCode, created.body).toBe(201);
    const { key, id: keyId } = created.json() as { key: string; id: string };
    const hook = await t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key,
      payload: { url: 'https://127.0.0.1:9/bh', events: ['audit.completed'] },
    });
    expect(hook.statusCode, hook.body).toBe(200);
    const connectionId = await connectThroughSimulator(t, { key, workspaceId: ws.id, platform: 'youtube' });

    // The person undoes them.
    expect((await owner.request('DELETE', `/v1/webhooks/${hook.json().id}`)).statusCode).toBe(200);
    expect((await owner.request('DELETE', '/v1/platforms/youtube')).statusCode).toBe(200);
    expect((await owner.request('DELETE', `/v1/keys/${keyId}`)).statusCode).toBe(200);

    // Sessions ended: sign-out, sign-out everywhere, and removal (bo's only workspace).
    const bo2 = await signedInPerson(t, { workspaceId: ws.id, role: 'member' });
    expect((await bo2.request('POST', '/v1/auth/sign-out')).statusCode).toBe(200);
    const cy = await signedInPerson(t, { workspaceId: ws.id, role: 'viewer' });
    expect((await cy.request('POST', '/v1/auth/sign-out-everywhere')).statusCode).toBe(200);
    expect((await owner.request('DELETE', `/v1/members/${bo.personId}`)).statusCode).toBe(200);

    const entries = await log(owner);
    const actions = new Set(entries.map((e) => e.action));
    for (const action of [
      'session.signed_in',
      'session.sign_in_failed',
      'session.signed_out',
      'session.signed_out_everywhere',
      'member.added',
      'member.role_changed',
      'member.removed',
      'invitation.created',
      'invitation.accepted',
      'invitation.revoked',
      'key.created',
      'key.revoked',
      'webhook.created',
      'webhook.deleted',
      'platform.connected',
      'platform.disconnected',
    ]) {
      expect(actions, action).toContain(action);
    }
    const one = (action: string) => entries.find((e) => e.action === action)!;
    for (const e of entries) {
      expect(e.address).toBe('127.0.0.1');
      expect(Date.parse(e.at)).toBeGreaterThanOrEqual(started - 1000);
    }
    expect(one('member.role_changed')).toMatchObject({
      actor: { kind: 'person', id: owner.personId, label: owner.email },
      target: bo.personId,
      detail: 'member -> admin',
    });
    expect(one('member.removed')).toMatchObject({ target: bo.personId, detail: 'was admin; sessions ended' });
    expect(one('webhook.created')).toMatchObject({
      actor: { kind: 'key', id: keyId, label: expect.stringContaining('automation') },
      target: hook.json().id,
    });
    expect(one('platform.connected')).toMatchObject({
      actor: { kind: 'key', id: keyId },
      target: connectionId,
    });
    expect(one('platform.disconnected')).toMatchObject({
      actor: { kind: 'person', id: owner.personId },
      target: connectionId,
    });
    expect(one('session.sign_in_failed')).toMatchObject({
      actor: { kind: 'person', id: owner.personId },
      target: owner.email,
      detail: 'wrong password',
    });
    expect(one('invitation.accepted')).toMatchObject({ actor: { kind: 'person', label: invitee } });
    // An address without an account is in no workspace's log.
    expect(JSON.stringify(entries)).not.toContain(stranger);
    const orphan = await t.db
      .selectFrom('audit_log')
      .select(['workspace_id'])
      .where('target', '=', stranger)
      .execute();
    expect(orphan).toEqual([{ workspace_id: null }]);
  });
});

describe('who reads it', () => {
  it('owners and admins signed in; members, viewers and API keys are refused (403)', async () => {
    const { ws, owner } = await team('pro');
    const admin = await signedInPerson(t, { workspaceId: ws.id, role: 'admin' });
    const member = await signedInPerson(t, { workspaceId: ws.id, role: 'member' });
    const viewer = await signedInPerson(t, { workspaceId: ws.id, role: 'viewer' });
    const { key } = await workspaceWithKey(t.db, { plan: 'pro' });
    const created = await owner.request('POST', '/v1/keys', { name: 'own', scopes: ['read', 'write'] });
    expect((await owner.request('GET', '/v1/audit-log')).statusCode).toBe(200);
    expect((await admin.request('GET', '/v1/audit-log')).statusCode).toBe(200);
    expectProblem(await member.request('GET', '/v1/audit-log'), 403, 'Forbidden');
    expectProblem(await viewer.request('GET', '/v1/audit-log'), 403, 'Forbidden');
    expectProblem(await t.request({ method: 'GET', url: '/v1/audit-log', key }), 403, 'Forbidden');
    expectProblem(
      await t.request({ method: 'GET', url: '/v1/audit-log', key: created.json().key }),
      403,
      'Forbidden',
    );
    expectProblem(await t.request({ method: 'GET', url: '/v1/audit-log' }), 401);
  });

  it('cannot be changed through the API', async () => {
    const { owner } = await team('pro');
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      const res = await owner.request(method, '/v1/audit-log', {});
      expect([404, 405], `${method} ${res.statusCode}`).toContain(res.statusCode);
    }
    const [entry] = await log(owner);
    const res = await owner.request('DELETE', `/v1/audit-log/${entry!.id}`);
    expect([404, 405]).toContain(res.statusCode);
    expect((await log(owner)).map((e) => e.id)).toContain(entry!.id);
  });

  it("shows a workspace only its own entries; an agency also reads its clients' logs, nobody else's", async () => {
    const a = await team('agency');
    const b = await team('pro');
    // B's activity: its owner's sign-in, a member added.
    const bMember = await signedInPerson(t);
    expect(
      (await b.owner.request('POST', '/v1/members', { email: bMember.email, role: 'viewer' })).statusCode,
    ).toBe(201);
    const aEntries = await log(a.owner);
    expect(aEntries.length).toBeGreaterThan(0);
    expect(aEntries.filter((e) => e.actor.id === b.owner.personId || e.target === bMember.personId)).toEqual(
      [],
    );
    expect((await log(b.owner)).map((e) => e.action)).toContain('member.added');
    expectProblem(await a.owner.request('GET', `/v1/audit-log?workspace_id=${b.ws.id}`), 404);
    expectProblem(await b.owner.request('GET', `/v1/audit-log?workspace_id=${a.ws.id}`), 404);

    // A client of the agency: what the agency does there is in the client's log, read by the agency.
    const client = await createWorkspace(t.db, { name: 'client', plan: 'pro', parentId: a.ws.id });
    await connectPlatform(t.db, { workspaceId: client.id, platform: 'tiktok', handle: '@client' });
    const off = await a.owner.request('DELETE', `/v1/platforms/tiktok?workspace_id=${client.id}`);
    expect(off.statusCode, off.body).toBe(200);
    const clientLog = await log(a.owner, `&workspace_id=${client.id}`);
    expect(clientLog.map((e) => e.action)).toEqual(['platform.disconnected']);
    expect((await log(a.owner)).map((e) => e.action)).not.toContain('platform.disconnected');
    expectProblem(await b.owner.request('GET', `/v1/audit-log?workspace_id=${client.id}`), 404);
  });
});

describe('reading it', () => {
  async function seeded() {
    const { ws, owner } = await team('pro');
    const base = Date.parse('2026-03-01T06:00:00Z');
    // 30 entries: pairs at the same instant (the order must still be stable), two actions, two targets.
    for (let i = 0; i < 30; i++) {
      await recordAudit(t.db, {
        actor: i % 3 === 0 ? { keyId: 'key_SEEDED' } : { personId: owner.personId },
        action: i % 2 === 0 ? 'key.created' : 'key.revoked',
        target: `key_T${i % 5}`,
        address: '198.51.100.9',
        workspaceId: ws.id,
        at: new Date(base + Math.floor(i / 2) * 3_600_000),
      });
    }
    return { ws, owner };
  }

  it('pages newest first with a stable cursor, even while new entries arrive', async () => {
    const { ws, owner } = await seeded();
    const all = await log(owner, '&since=2026-03-01&until=2026-03-02');
    expect(all).toHaveLength(30);
    const order = all.map((e) => `${e.at} ${e.id}`);
    expect(order).toEqual([...order].sort().reverse());

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await owner.request(
        'GET',
        `/v1/audit-log?since=2026-03-01&until=2026-03-02&limit=7${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.statusCode, res.body).toBe(200);
      seen.push(...res.json().entries.map((e: Entry) => e.id));
      cursor = res.json().next_cursor;
      pages++;
      // A newer entry arriving between pages changes nothing in the pages after it.
      await recordAudit(t.db, {
        actor: { personId: owner.personId },
        action: 'key.created',
        target: 'key_LATE',
        workspaceId: ws.id,
        at: new Date('2026-03-01T23:59:00Z'),
      });
    } while (cursor !== null);
    expect(pages).toBe(5);
    expect(seen).toEqual(all.map((e) => e.id));
  });

  it('filters by action (one or several), actor, target and time', async () => {
    const { owner } = await seeded();
    const range = '&since=2026-03-01T00:00:00Z&until=2026-03-01T23:00:00Z';
    expect(await log(owner, `&action=key.created${range}`)).toHaveLength(15);
    expect(await log(owner, `&action=key.created,key.revoked${range}`)).toHaveLength(30);
    expect(await log(owner, `&action=member.added${range}`)).toHaveLength(0);
    const byKey = await log(owner, `&actor=key_SEEDED${range}`);
    expect(byKey).toHaveLength(10);
    expect(byKey.every((e) => e.actor.kind === 'key' && e.actor.id === 'key_SEEDED')).toBe(true);
    expect((await log(owner, `&actor=${owner.personId}${range}`)).length).toBe(20);
    expect((await log(owner, `&target=key_T3${range}`)).map((e) => e.target)).toEqual(
      Array(6).fill('key_T3'),
    );
    // 06:00 to 08:59: three hours, two entries each.
    expect(await log(owner, '&since=2026-03-01T06:00:00Z&until=2026-03-01T08:59:59Z')).toHaveLength(6);
  });

  it('answers the same filtered range as CSV', async () => {
    const { owner } = await seeded();
    const query = '/v1/audit-log?since=2026-03-01&until=2026-03-01&action=key.revoked&limit=5';
    const res = await owner.request('GET', query, undefined, { accept: 'text/csv' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers.vary).toContain('Accept');
    const lines = res.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe('id,at,action,actor.kind,actor.id,actor.label,target,detail,address');
    expect(lines).toHaveLength(16); // the whole range (15 entries), not one JSON page of 5
    expect(lines.slice(1).every((l) => l.includes(',key.revoked,'))).toBe(true);
    expect(res.headers.link).toBeUndefined();
  });

  it('refuses bad dates, a reversed range, a made-up cursor and malformed action names (400)', async () => {
    const { owner } = await team('pro');
    for (const query of [
      'since=2026-13-01',
      'until=yesterday',
      'since=2026-02-30',
      'since=2026-03-02&until=2026-03-01',
      'since=2026-03-01T10:00:00Z&until=2026-03-01T10:00:00Z',
      'cursor=not-a-cursor',
      'action=KEY.CREATED',
      'action=key.created,',
      'limit=0',
      'limit=201',
      'colour=blue',
    ]) {
      const res = await owner.request('GET', `/v1/audit-log?${query}`);
      expect(res.statusCode, `${query}: ${res.body}`).toBe(400);
      expectProblem(res, 400);
    }
  });
});

describe('keys record their last use', () => {
  it('writes last_used_at when a key authenticates, at most once a minute', async () => {
    const { owner } = await team('pro');
    const created = await owner.request('POST', '/v1/keys', { name: 'reader', scopes: ['read'] });
    const { key, id } = created.json() as { key: string; id: string };
    const lastUsed = async () =>
      (
        (await owner.request('GET', '/v1/keys')).json().keys as Array<{
          id: string;
          last_used_at: string | null;
        }>
      ).find((k) => k.id === id)!.last_used_at;
    expect(await lastUsed()).toBeNull();
    expect((await t.request({ method: 'GET', url: '/v1/workspace', key })).statusCode).toBe(200);
    const first = await lastUsed();
    expect(first).not.toBeNull();
    expect((await t.request({ method: 'GET', url: '/v1/workspace', key })).statusCode).toBe(200);
    expect(await lastUsed()).toBe(first); // within the minute: not written again
    // A use more than a minute after the recorded one is written.
    await t.db
      .updateTable('api_keys')
      .set({ last_used_at: new Date(Date.parse(first!) - 120_000) })
      .where('id', '=', id)
      .execute();
    expect((await t.request({ method: 'GET', url: '/v1/workspace', key })).statusCode).toBe(200);
    expect(Date.parse((await lastUsed())!)).toBeGreaterThanOrEqual(Date.parse(first!));

    // An instance that keeps verified keys in memory (AUTH_CACHE_TTL_MS): the cached answer costs no
    // write until a minute has passed since the recorded use, then one.
    const cache = new Authenticator(t.db, 10 * 60_000);
    const t0 = Date.parse((await lastUsed())!);
    expect(await cache.authenticate(`Bearer ${key}`, t0 + 1000)).not.toBeNull();
    expect(cache.authenticateCached(`Bearer ${key}`, t0 + 30_000)).not.toBeUndefined();
    expect(cache.useDue(id, t0 + 30_000)).toBe(false);
    expect(cache.useDue(id, t0 + 61_000)).toBe(true);
    await cache.recordUseIfDue(id, t0 + 61_000);
    expect(await lastUsed()).toBe(new Date(t0 + 61_000).toISOString());
    expect(cache.useDue(id, t0 + 62_000)).toBe(false);
  });
});

describe('retention', () => {
  it('the retention purge deletes entries older than AUDIT_LOG_RETENTION_DAYS (365) and keeps the rest', async () => {
    const { ws, owner } = await team('pro');
    const now = new Date();
    for (const days of [400, 366, 364, 1]) {
      await recordAudit(t.db, {
        actor: { personId: owner.personId },
        action: 'key.created',
        target: `key_AGE${days}`,
        workspaceId: ws.id,
        at: new Date(now.getTime() - days * 86_400_000),
      });
    }
    expect(t.ctx.config.auditLogRetentionDays).toBe(365);
    // What the daily retention job (retention.purge) runs.
    expect((await purgeExpired(t.ctx)).auditLog).toBeGreaterThanOrEqual(2);
    const targets = (await log(owner, '&action=key.created')).map((e) => e.target);
    expect(targets).toEqual(['key_AGE1', 'key_AGE364']);
  });
});

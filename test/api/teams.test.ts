import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { expectProblem, startTestService, type TestService } from '../helpers/service.ts';
import { PASSWORD, signedInPerson, signIn, type Browser } from '../helpers/people.ts';
import { peopleSandbox } from '../../src/people/sandbox.ts';
import type { SandboxManifest } from '../../src/sandbox/manifest.ts';

// Teams through HTTP: members and roles, invitations (mail read from a real SMTP server), keys
// made by people, and sessions acting in a workspace.
let smtp: TestSmtpServer;
let t: TestService;

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await startTestService({}, { SMTP_URL: smtp.url, MAIL_FROM: 'Brand Health <hello@example.test>' });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

async function inviteToken(email: string): Promise<string> {
  const mail = await smtp.waitFor((m) => m.envelope.to.includes(email));
  const match = /\/app\/#\/accept-invitation\?token=([A-Za-z0-9_%-]+)/.exec(mail.parsed.text ?? '');
  expect(match).not.toBeNull();
  return decodeURIComponent(match![1]!);
}

async function team(plan: 'pro' | 'agency' = 'pro') {
  const ws = await createWorkspace(t.db, {
    name: `${plan} team`,
    plan,
    accountType: plan === 'agency' ? 'agency' : 'brand',
  });
  const owner = await signedInPerson(t, { workspaceId: ws.id, role: 'owner' });
  return { ws, owner };
}

let emails = 0;
const freshEmail = () => `invitee${++emails}-${process.pid}@example.test`;

describe('sessions act in a workspace', () => {
  it('lists the workspaces with role, serves workspace routes, and counts the team from memberships', async () => {
    const { ws, owner } = await team();
    const me = await owner.request('GET', '/v1/auth/session');
    expect(me.json().workspaces).toEqual([{ id: ws.id, name: ws.name, role: 'owner', plan: 'pro' }]);
    const workspace = await owner.request('GET', '/v1/workspace');
    expect(workspace.statusCode).toBe(200);
    expect(workspace.json()).toMatchObject({ id: ws.id, team_members: 1, team_limit: 5 });
  });

  it('refuses a session POST without the CSRF token', async () => {
    const { owner } = await team();
    const res = await t.request({
      method: 'POST',
      url: '/v1/invitations',
      payload: { email: freshEmail(), role: 'member' },
      headers: { cookie: `bh_session=${owner.cookie}` },
    });
    expectProblem(res, 403, 'CSRF Token Missing Or Wrong');
  });

  it('refuses X-Workspace-Id naming a workspace the person is not a member of', async () => {
    const { owner } = await team();
    const other = await createWorkspace(t.db, { name: 'other', plan: 'pro' });
    const res = await owner.request('GET', '/v1/workspace', undefined, { 'x-workspace-id': other.id });
    expectProblem(res, 403, 'Forbidden');
  });

  it("reaches an agency's client workspaces through the agency membership", async () => {
    const { ws: agency, owner } = await team('agency');
    const client = await createWorkspace(t.db, { name: 'client', plan: 'pro', parentId: agency.id });
    const res = await owner.request('GET', `/v1/score?workspace_id=${client.id}`, undefined, {
      'x-workspace-id': client.id,
    });
    expect(res.statusCode).not.toBe(403);
  });
});

describe('a workspace of ones own', () => {
  it('a signed-in person creates Free workspaces as owner, up to the limit, raced', async () => {
    const person = await signedInPerson(t);
    // Without the CSRF token: refused, nothing created.
    expectProblem(
      await t.request({
        method: 'POST',
        url: '/v1/auth/workspaces',
        payload: { name: 'No token' },
        headers: { cookie: `bh_session=${person.cookie}` },
      }),
      403,
    );
    expectProblem(await person.request('POST', '/v1/auth/workspaces', { name: '' }), 400);
    const first = await person.request('POST', '/v1/auth/workspaces', { name: '  Trailhead Co ' });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toMatchObject({ name: 'Trailhead Co', plan: 'free', role: 'owner' });
    const session = (await person.request('GET', '/v1/auth/session')).json();
    expect(session.workspaces).toEqual([
      { id: first.json().id, name: 'Trailhead Co', role: 'owner', plan: 'free' },
    ]);
    // It acts there at once, as owner: its audit log has the creation.
    const log = await person.request('GET', '/v1/audit-log', undefined, {
      'x-workspace-id': first.json().id,
    });
    expect(log.statusCode, log.body).toBe(200);
    expect(log.json().entries.map((e: { action: string }) => e.action)).toContain('workspace.created');

    await person.request('POST', '/v1/auth/workspaces', { name: 'Second' });
    // Two requests at once for the last place: one is created, the other refused.
    const raced = await Promise.all([
      person.request('POST', '/v1/auth/workspaces', { name: 'Race A' }),
      person.request('POST', '/v1/auth/workspaces', { name: 'Race B' }),
    ]);
    expect(raced.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    const owned = await t.db
      .selectFrom('memberships')
      .select('workspace_id')
      .where('person_id', '=', person.personId)
      .execute();
    expect(owned).toHaveLength(3);
  });
});

describe('members', () => {
  it('adds, changes and removes members; the last owner can be neither removed nor demoted (409)', async () => {
    const { ws, owner } = await team();
    const bo = await signedInPerson(t);
    const added = await owner.request('POST', '/v1/members', { email: bo.email, role: 'member' });
    expect(added.statusCode).toBe(201);
    expect((await owner.request('GET', '/v1/members')).json().members).toHaveLength(2);
    expectProblem(
      await owner.request('PATCH', `/v1/members/${owner.personId}`, { role: 'admin' }),
      409,
      'Last Owner',
    );
    expectProblem(await owner.request('DELETE', `/v1/members/${owner.personId}`), 409, 'Last Owner');
    const promoted = await owner.request('PATCH', `/v1/members/${bo.personId}`, { role: 'admin' });
    expect(promoted.json()).toMatchObject({ person_id: bo.personId, role: 'admin' });
    // An admin cannot touch owners.
    expectProblem(
      await bo.request('PATCH', `/v1/members/${owner.personId}`, { role: 'viewer' }),
      403,
      'Forbidden',
    );
    const log = await t.db
      .selectFrom('audit_log')
      .select(['action', 'actor_person_id'])
      .where('workspace_id', '=', ws.id)
      .execute();
    expect(log.map((l) => l.action)).toEqual(expect.arrayContaining(['member.added', 'member.role_changed']));
  });

  it("fails the removed person's next request", async () => {
    const { owner, ws } = await team();
    const bo = await signedInPerson(t, { workspaceId: ws.id, role: 'member' });
    expect((await bo.request('GET', '/v1/workspace')).statusCode).toBe(200);
    expect((await owner.request('DELETE', `/v1/members/${bo.personId}`)).statusCode).toBe(200);
    const after = await bo.request('GET', '/v1/workspace');
    expect(after.statusCode).toBe(401); // no membership left: every session ended
    const sessions = await t.db
      .selectFrom('sessions')
      .select('person_id')
      .where('person_id', '=', bo.personId)
      .execute();
    expect(sessions).toEqual([]);
  });

  it('refuses the member of another workspace as still a member here after removal', async () => {
    const { owner, ws } = await team();
    const elsewhere = await createWorkspace(t.db, { name: 'elsewhere', plan: 'pro' });
    const bo = await signedInPerson(t, { workspaceId: ws.id, role: 'member' });
    await t.db
      .insertInto('memberships')
      .values({ workspace_id: elsewhere.id, person_id: bo.personId, role: 'viewer' })
      .execute();
    expect((await owner.request('DELETE', `/v1/members/${bo.personId}`)).statusCode).toBe(200);
    expectProblem(
      await bo.request('GET', '/v1/workspace', undefined, { 'x-workspace-id': ws.id }),
      403,
      'Forbidden',
    );
    expect(
      (await bo.request('GET', '/v1/workspace', undefined, { 'x-workspace-id': elsewhere.id })).statusCode,
    ).toBe(200);
  });
});

describe('invitations', () => {
  it('invites by email; a new person accepts with sign-up fields and can sign in', async () => {
    const { ws, owner } = await team();
    const email = freshEmail();
    const created = await owner.request('POST', '/v1/invitations', { email, role: 'viewer' });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ email, role: 'viewer', status: 'pending' });
    expect(created.json()).not.toHaveProperty('token');
    const token = await inviteToken(email);
    const accepted = await t.request({
      method: 'POST',
      url: '/v1/invitations/accept',
      payload: { token, name: 'Cy', password: PASSWORD },
    });
    expect(accepted.statusCode).toBe(201);
    expect(accepted.json()).toMatchObject({ workspace_id: ws.id, role: 'viewer' });
    const cy = await signIn(t, email, accepted.json().person_id);
    expect((await cy.request('GET', '/v1/workspace')).json().team_members).toBe(2);
    // Viewer: read only.
    expectProblem(
      await cy.request('POST', '/v1/invitations', { email: freshEmail(), role: 'viewer' }),
      403,
      'Forbidden',
    );
    const list = await owner.request('GET', '/v1/invitations');
    expect(list.json().invitations[0]).toMatchObject({ email, status: 'accepted' });
  });

  it('lets exactly one of two concurrent accepts win', async () => {
    const { owner } = await team();
    const email = freshEmail();
    await owner.request('POST', '/v1/invitations', { email, role: 'member' });
    const token = await inviteToken(email);
    const [a, b] = await Promise.all([signedInPerson(t), signedInPerson(t)]);
    const results = await Promise.all([
      a.request('POST', '/v1/invitations/accept', { token }),
      b.request('POST', '/v1/invitations/accept', { token }),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 410]);
    const loser = results.find((r) => r.statusCode === 410)!;
    expectProblem(loser, 410, 'Invitation Unusable');
    expect(loser.json().reason).toBe('accepted');
  });

  it('answers 410 for a revoked or expired invitation', async () => {
    const { owner } = await team();
    const revokedEmail = freshEmail();
    const revoked = await owner.request('POST', '/v1/invitations', { email: revokedEmail, role: 'member' });
    const revokedToken = await inviteToken(revokedEmail);
    expect((await owner.request('DELETE', `/v1/invitations/${revoked.json().id}`)).statusCode).toBe(200);
    const bo = await signedInPerson(t);
    const r1 = await bo.request('POST', '/v1/invitations/accept', { token: revokedToken });
    expectProblem(r1, 410, 'Invitation Unusable');
    expect(r1.json().reason).toBe('revoked');

    const expiredEmail = freshEmail();
    await owner.request('POST', '/v1/invitations', { email: expiredEmail, role: 'member' });
    const expiredToken = await inviteToken(expiredEmail);
    t.setNow(new Date(Date.now() + 8 * 24 * 60 * 60 * 1000));
    try {
      const r2 = await t.request({
        method: 'POST',
        url: '/v1/invitations/accept',
        payload: { token: expiredToken, name: 'Late', password: PASSWORD },
      });
      expectProblem(r2, 410, 'Invitation Unusable');
      expect(r2.json().reason).toBe('expired');
    } finally {
      t.setNow(undefined);
    }
  });

  it("enforces the plan's team limit on invite (pending invitations count) and names the plan", async () => {
    const ws = await createWorkspace(t.db, { name: 'free team', plan: 'free' });
    // A free workspace allows 1 person; its owner fills it. (Free workspaces reach /v1 team routes.)
    const owner = await signedInPerson(t, { workspaceId: ws.id, role: 'owner' });
    const res = await owner.request('POST', '/v1/invitations', { email: freshEmail(), role: 'member' });
    expectProblem(res, 403, 'Team Limit Reached');
    expect(res.json()).toMatchObject({ plan: 'free', team_limit: 1 });
    expect(res.json().detail).toContain('Free');
  });

  it('enforces the team limit on accept', async () => {
    const { ws, owner } = await team(); // pro: 5 people
    const email = freshEmail();
    await owner.request('POST', '/v1/invitations', { email, role: 'member' });
    const token = await inviteToken(email);
    for (let i = 0; i < 4; i++) await signedInPerson(t, { workspaceId: ws.id, role: 'viewer' });
    const late = await signedInPerson(t);
    expectProblem(await late.request('POST', '/v1/invitations/accept', { token }), 403, 'Team Limit Reached');
  });
});

describe('keys made by people', () => {
  it("creates keys within the creator's permissions, lists them without secrets, revokes them", async () => {
    const { ws, owner } = await team();
    const member = await signedInPerson(t, { workspaceId: ws.id, role: 'member' });
    expectProblem(
      await member.request('POST', '/v1/keys', { name: 'ci', scopes: ['read'] }),
      403,
      'Forbidden',
    );
    const admin: Browser = await signedInPerson(t, { workspaceId: ws.id, role: 'admin' });
    // write grants workspace settings, which an admin does not hold.
    expectProblem(
      await admin.request('POST', '/v1/keys', { name: 'ci', scopes: ['write'] }),
      403,
      'Forbidden',
    );
    const created = await admin.request('POST', '/v1/keys', { name: 'ci', scopes: ['read'] });
    expect(created.statusCode).toBe(201);
    const key = created.json().key as string;
    expect((await t.request({ method: 'GET', url: '/v1/workspace', key })).statusCode).toBe(200);
    // A key cannot manage keys, whatever its scopes.
    expectProblem(await t.request({ method: 'GET', url: '/v1/keys', key }), 403, 'Forbidden');
    const list = (await owner.request('GET', '/v1/keys')).json().keys;
    expect(list).toEqual([
      expect.objectContaining({ id: created.json().id, name: 'ci', created_by_person_id: admin.personId }),
    ]);
    expect(JSON.stringify(list)).not.toContain(key);
    expect((await owner.request('DELETE', `/v1/keys/${created.json().id}`)).statusCode).toBe(200);
    expect((await t.request({ method: 'GET', url: '/v1/workspace', key })).statusCode).toBe(401);
    const actions = await t.db
      .selectFrom('audit_log')
      .select('action')
      .where('workspace_id', '=', ws.id)
      .execute();
    expect(actions.map((a) => a.action)).toEqual(expect.arrayContaining(['key.created', 'key.revoked']));
  });
});

describe('sandbox people', () => {
  it('seeds a person per role in the pro workspace and the agency, and the Free owner, who can sign in', async () => {
    const free = await createWorkspace(t.db, { name: 'sandbox free', plan: 'free' });
    const pro = await createWorkspace(t.db, { name: 'sandbox pro', plan: 'pro' });
    const agency = await createWorkspace(t.db, {
      name: 'sandbox agency',
      plan: 'agency',
      accountType: 'agency',
    });
    const manifest = {
      workspaces: { free: free.id, pro: pro.id, agency: agency.id },
    } as unknown as SandboxManifest;
    await peopleSandbox.run(t.ctx, manifest, () => {});
    expect(Object.keys(manifest.people!).sort()).toEqual(
      [
        'free-owner',
        ...['admin', 'member', 'owner', 'viewer'].flatMap((r) => [`agency-${r}`, `pro-${r}`]),
      ].sort(),
    );
    const viewer = manifest.people!['pro-viewer']!;
    const res = await t.request({
      method: 'POST',
      url: '/v1/auth/sign-in',
      payload: { email: viewer.email, password: viewer.password },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().workspaces).toEqual([expect.objectContaining({ id: pro.id, role: 'viewer' })]);
  });
});

import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import { DASHBOARD_DIST } from '../../src/infra/http/dashboard.ts';
import { browserAvailable, launchBrowser } from '../helpers/browser.ts';
import { startTestProvider, type TestProvider } from '../helpers/oidc.ts';
import { signedInPerson } from '../helpers/people.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

/**
 * Single sign-on in Chromium: the sign-in page's "Sign in with SSO" sends the browser to a real
 * OpenID Connect provider (oidc-provider on a loopback port), which sends it back signed in; the
 * browser's own cookie handling (HttpOnly, Secure, SameSite=Lax across the provider's redirects) is
 * what is under test. A fresh database of its own: it needs no seeded sandbox.
 */
describe.runIf(browserAvailable)('single sign-on in a real browser', () => {
  let t: TestService;
  let op: TestProvider;
  let browser: Browser;
  let base: string;
  let agencyId: string;
  let clientId: string;

  beforeAll(async () => {
    if (!fs.existsSync(path.join(DASHBOARD_DIST, 'index.html'))) {
      throw new Error('dashboard/dist is missing: `npm run build:dashboard`');
    }
    t = await startTestService({}, { ALLOW_LOOPBACK_FETCH: 'true' });
    base = await t.listen();
    op = await startTestProvider(`${base}/v1/auth/sso/callback`);
    const agency = await createWorkspace(t.db, { name: 'Sso Agency', plan: 'agency', accountType: 'agency' });
    const client = await createWorkspace(t.db, { name: 'Sso Client', plan: 'pro', parentId: agency.id });
    agencyId = agency.id;
    clientId = client.id;
    const owner = await signedInPerson(t, { workspaceId: agency.id, role: 'owner' });
    const saved = await owner.request('PUT', '/v1/workspace/sso', {
      issuer: op.issuer,
      client_id: op.clientId,
      client_secret: op.clientSecret,
      allowed_domains: ['agency.example'],
      default_role: 'member',
    });
    expect(saved.statusCode, saved.body).toBe(200);
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await op?.close();
    await t?.close();
  });

  async function signInWithSso(context: BrowserContext, email: string) {
    op.signInAs(op.account({ email, email_verified: true, name: 'Gil Agent' }));
    const page = await context.newPage();
    await page.goto(`${base}/app/`);
    await page.getByLabel('Work email').fill(email);
    await page.getByRole('button', { name: 'Sign in with SSO' }).click();
    await page.waitForURL((url) => url.pathname === '/app/' && url.origin === base);
    return page;
  }

  it("signs an agency's person in through the provider and reaches the client workspace", async () => {
    const context = await browser.newContext();
    const page = await signInWithSso(context, 'gil@agency.example');
    const cookies = await context.cookies(base);
    const session = cookies.find((c) => c.name === 'bh_session');
    expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax' });
    expect(cookies.find((c) => c.name === 'bh_sso')).toBeUndefined();
    // The page's own requests carry the session: the person, their agency, and its client.
    const seen = await page.evaluate(
      async ([agency, client]) => {
        const me = (await (await fetch('/v1/auth/session')).json()) as {
          person: { email: string };
          workspaces: Array<{ id: string; role: string }>;
        };
        const platforms = await fetch(`/v1/platforms?workspace_id=${client}`, {
          headers: { 'x-workspace-id': client! },
        });
        return { me, agency, clientStatus: platforms.status };
      },
      [agencyId, clientId],
    );
    expect(seen.me.person.email).toBe('gil@agency.example');
    expect(seen.me.workspaces).toEqual([expect.objectContaining({ id: agencyId, role: 'member' })]);
    expect(seen.clientStatus).toBe(200);
    // In the dashboard: signed in as the agency's member, the client is opened from the Agency view.
    const nav = page.getByRole('navigation', { name: 'Views' });
    await nav.waitFor();
    expect(await page.getByTestId('who').innerText()).toContain('Sso Agency');
    await nav.getByRole('link', { name: 'Agency' }).click();
    await page.getByRole('button', { name: 'Open Sso Client' }).click();
    await page.getByText('Viewing client').waitFor();
    await nav.getByRole('link', { name: 'Platforms' }).click();
    await page.getByRole('heading', { level: 1, name: 'Platforms' }).waitFor();
    await context.close();
  });

  it('says on the sign-in page why single sign-on refused (no workspace signs in the address)', async () => {
    const context = await browser.newContext();
    const page = await signInWithSso(context, 'eve@elsewhere.example');
    expect(new URL(page.url()).searchParams.get('sso_error')).toBe('sso_unavailable');
    await expect.poll(() => page.getByTestId('sso-error').textContent()).toContain('not set up');
    expect((await context.cookies(base)).find((c) => c.name === 'bh_session')).toBeUndefined();
    await context.close();
  });
});

import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_DIST } from '../../src/infra/http/dashboard.ts';
import { accessibilityViolations, browserAvailable, launchBrowser } from '../helpers/browser.ts';
import { PASSWORD, signedInPerson } from '../helpers/people.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { auditEntries } from '../helpers/audit-log.ts';

/**
 * Passkeys in Chromium with a CDP virtual authenticator (a platform authenticator holding discoverable
 * credentials, user verification on): a signed-in person registers a passkey on the Account page, signs
 * out, and signs in again with the "Sign in with a passkey" button, typing no email. WebAuthn needs a
 * secure context and an RP id the page's host belongs to: the page is opened on http://localhost, which
 * browsers treat as secure, and the service (no PUBLIC_URL) takes `localhost` as its RP id for a loopback
 * request.
 */
describe.runIf(browserAvailable)('passkeys in a real browser', () => {
  let t: TestService;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;
  let person: { personId: string; email: string };
  const pageErrors: string[] = [];

  /** axe-core's WCAG 2 A/AA rules on the page as it is now: no violation. */
  async function expectAccessible(what: string): Promise<void> {
    expect(await accessibilityViolations(page), what).toEqual([]);
  }

  beforeAll(async () => {
    if (!fs.existsSync(path.join(DASHBOARD_DIST, 'index.html'))) {
      throw new Error('dashboard/dist is missing: `npm run build:dashboard`');
    }
    t = await startTestService();
    base = (await t.listen()).replace('127.0.0.1', 'localhost');
    person = await signedInPerson(t);
    browser = await launchBrowser();
    // bypassCSP only so the test can inject axe-core.
    context = await browser.newContext({ viewport: { width: 1200, height: 900 }, bypassCSP: true });
    page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    }));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const sessionStatus = () =>
    page.evaluate(async () => (await fetch('/v1/auth/session', { credentials: 'same-origin' })).status);

  it('registers a passkey on the Account page', async () => {
    await page.goto(`${base}/app/`);
    // Signed in with the password on the sign-in page; the person is in no workspace yet, so the
    // dashboard says how to get into one, and offers the Account page.
    await page.getByLabel('Email', { exact: true }).fill(person.email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByTestId('no-workspace').waitFor();
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Account' }).click();
    await expect.poll(() => page.getByTestId('account-person').textContent()).toContain(person.email);
    await expect.poll(() => page.getByText('No passkeys yet.').count()).toBe(1);

    await page.getByLabel('Name of the new passkey').fill('Test laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('status').filter({ hasText: 'Passkey “Test laptop” added.' }).waitFor();
    await expect
      .poll(() => page.getByTestId('passkeys').getByRole('row').allInnerTexts())
      .toEqual([expect.stringMatching(/^Name/), expect.stringMatching(/^Test laptop\s.*never/)]);

    await expectAccessible('account with a passkey');

    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.isResidentCredential).toBe(true);
    const stored = await t.db.selectFrom('passkeys').selectAll().execute();
    expect(stored).toMatchObject([{ person_id: person.personId, name: 'Test laptop', last_used_at: null }]);
    expect(stored[0]!.credential_id).toBe(
      credentials[0]!.credentialId.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'),
    );
  });

  it('signs out, then signs in with the passkey button without typing an email', async () => {
    await page.getByRole('button', { name: 'Sign out of this account' }).click();
    const button = page.getByRole('button', { name: 'Sign in with a passkey' });
    await button.waitFor();
    expect(await sessionStatus()).toBe(401);
    await expectAccessible('sign-in with the passkey button');

    await button.click();
    await page.getByTestId('no-workspace').waitFor();
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Account' }).click();
    await expect.poll(() => page.getByTestId('account-person').textContent()).toContain(person.email);
    expect(await sessionStatus()).toBe(200);
    await expect
      .poll(() => page.getByTestId('passkeys').getByRole('row').nth(1).innerText())
      .not.toMatch(/never/);
    const audit = await auditEntries(t.db, { personId: person.personId });
    expect(audit.map((a) => a.action)).toEqual(
      expect.arrayContaining(['passkey.registered', 'session.signed_out', 'session.signed_in']),
    );
    expect(pageErrors).toEqual([]);
  });
});

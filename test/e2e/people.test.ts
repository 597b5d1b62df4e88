import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_DIST } from '../../src/infra/http/dashboard.ts';
import { accessibilityViolations, browserAvailable, launchBrowser } from '../helpers/browser.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { auditEntries } from '../helpers/audit-log.ts';

/**
 * A team's first hour in Chromium, through the dashboard only: a person signs up, confirms the address
 * from the SMTP server's inbox (a real SMTP server started here), signs in, starts a workspace,
 * registers a passkey (a CDP virtual authenticator) and signs in with it, invites a colleague as a
 * viewer, who accepts from the emailed link and sees only what a viewer may; removed from the team,
 * the colleague's next request is refused. The pages are opened on http://localhost (a secure context,
 * which WebAuthn needs); the emailed links name 127.0.0.1, the service's own address without PUBLIC_URL,
 * and are opened on localhost so the browser keeps one origin.
 */
describe.runIf(browserAvailable)('people and teams in a real browser', () => {
  let t: TestService;
  let smtp: TestSmtpServer;
  let base: string;
  let browser: Browser;
  const PASSWORD = 'violet-harbour-lantern-42';
  const ana = { name: 'Ana Silva', email: `ana-${process.pid}@trailhead.example` };
  const bo = { name: 'Bo Lee', email: `bo-${process.pid}@trailhead.example` };
  let workspaceId: string;
  const pageErrors: string[] = [];

  /** axe-core's WCAG 2 A/AA rules on the page as it is now: no violation. */
  async function expectAccessible(page: Page, what: string): Promise<void> {
    expect(await accessibilityViolations(page), what).toEqual([]);
  }

  /** The link of the newest message to `to` with `subject`, moved onto this test's localhost origin. */
  async function emailedLink(to: string, subject: string): Promise<string> {
    const mail = await smtp.waitFor((m) => m.envelope.to.includes(to) && m.parsed.subject === subject);
    const link = /(https?:\/\/\S+\/app\/#\/\S+)/.exec(mail.parsed.text ?? '')![1]!;
    const url = new URL(link);
    return `${base}${url.pathname}${url.hash}`;
  }

  async function newPage(context: BrowserContext): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    return page;
  }

  async function signIn(page: Page, email: string): Promise<void> {
    await page.goto(`${base}/app/`);
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('navigation', { name: 'Views' }).waitFor();
  }

  const nav = (page: Page) => page.getByRole('navigation', { name: 'Views' });
  async function go(page: Page, view: string): Promise<void> {
    await nav(page).getByRole('link', { name: view }).click();
    await page.getByRole('heading', { level: 1, name: view }).waitFor();
  }

  beforeAll(async () => {
    if (!fs.existsSync(path.join(DASHBOARD_DIST, 'index.html'))) {
      throw new Error('dashboard/dist is missing: `npm run build:dashboard`');
    }
    smtp = await startSmtpServer();
    t = await startTestService({}, { SMTP_URL: smtp.url, MAIL_FROM: 'Brand Health <hello@example.test>' });
    base = (await t.listen()).replace('127.0.0.1', 'localhost');
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  it('signs up, confirms the address from the inbox, signs in and starts a workspace', async () => {
    const context = await browser.newContext({ bypassCSP: true });
    const page = await newPage(context);
    await page.goto(`${base}/app/`);
    await page.getByRole('button', { name: 'Create an account' }).click();
    await page.getByLabel('Your name').fill(ana.name);
    await page.getByLabel('Email', { exact: true }).fill(ana.email);
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create the account' }).click();
    await page.getByTestId('signup-sent').waitFor();
    await expectAccessible(page, 'sign-up sent');

    // Not confirmed yet: the sign-in is refused, in words.
    await page.goto(`${base}/app/`);
    await page.getByLabel('Email', { exact: true }).fill(ana.email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('not confirmed yet');

    await page.goto(await emailedLink(ana.email, 'Confirm your email address'));
    await page.getByRole('button', { name: 'Confirm my address' }).click();
    await page.getByTestId('verified').waitFor();
    await expectAccessible(page, 'address confirmed');

    await signIn(page, ana.email);
    await page.getByTestId('no-workspace').waitFor();
    await page.getByLabel('Name of the brand or team').fill('Trailhead Co');
    await page.getByRole('button', { name: 'Create the workspace' }).click();
    await expect
      .poll(() =>
        page
          .getByTestId('who')
          .innerText()
          .catch(() => ''),
      )
      .toContain('Trailhead Co · free plan · owner');
    const [membership] = await t.db
      .selectFrom('memberships')
      .innerJoin('people', 'people.id', 'memberships.person_id')
      .select(['memberships.workspace_id', 'memberships.role'])
      .where('people.email', '=', ana.email)
      .execute();
    expect(membership!.role).toBe('owner');
    workspaceId = membership!.workspace_id;
    // The operator moves it to Pro (room for five people), as `brandhealth workspace set-plan` does.
    await t.db.updateTable('workspaces').set({ plan: 'pro' }).where('id', '=', workspaceId).execute();
    await context.close();
  }, 120_000);

  it('registers a passkey and signs in with it, typing no email', async () => {
    const context = await browser.newContext({ bypassCSP: true });
    const page = await newPage(context);
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    await signIn(page, ana.email);
    await go(page, 'Account');
    await page.getByLabel('Name of the new passkey').fill('Work laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('status').filter({ hasText: 'Passkey “Work laptop” added.' }).waitFor();
    await page.getByRole('button', { name: 'Sign out of this account' }).click();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await expect
      .poll(() =>
        page
          .getByTestId('who')
          .innerText()
          .catch(() => ''),
      )
      .toContain('Trailhead Co · pro plan · owner');
    await context.close();
  }, 120_000);

  it('invites a colleague as viewer, who accepts and sees only what a viewer may; removed, refused at once', async () => {
    const anaContext = await browser.newContext({ bypassCSP: true });
    const anaPage = await newPage(anaContext);
    await signIn(anaPage, ana.email);
    await go(anaPage, 'Team');
    await anaPage.getByLabel('Email address').fill(bo.email);
    await anaPage.getByLabel('Role', { exact: true }).selectOption('viewer');
    await anaPage.getByRole('button', { name: 'Send invitation' }).click();
    await anaPage.getByText(bo.email).first().waitFor();

    const boContext = await browser.newContext({ bypassCSP: true });
    const boPage = await newPage(boContext);
    const link = await emailedLink(bo.email, 'You are invited to Trailhead Co on Brand Health');
    await boPage.goto(link);
    await boPage.getByLabel('Your name').fill(bo.name);
    await boPage.getByLabel(/^Password/).fill(PASSWORD);
    await boPage.getByRole('button', { name: 'Join the workspace' }).click();
    await boPage.getByTestId('invitation-accepted').waitFor();
    await expectAccessible(boPage, 'invitation accepted');
    // The link works once.
    await boPage.goto('about:blank');
    await boPage.goto(link);
    await boPage.getByLabel('Your name').fill(bo.name);
    await boPage.getByLabel(/^Password/).fill(PASSWORD);
    await boPage.getByRole('button', { name: 'Join the workspace' }).click();
    await boPage.getByRole('alert').waitFor();

    await signIn(boPage, bo.email);
    expect(await boPage.getByTestId('who').innerText()).toContain('Trailhead Co · pro plan · viewer');
    expect(await nav(boPage).getByRole('link').allInnerTexts()).toEqual([
      'Workspace',
      'History',
      'Audits',
      'Platforms',
      'Account',
      'Team',
    ]);
    await go(boPage, 'Audits');
    await boPage.getByTestId('role-note').waitFor();
    expect(await boPage.getByRole('button', { name: 'Run audit' }).count()).toBe(0);
    await go(boPage, 'Team');
    await boPage.getByTestId('team-read-only').waitFor();
    await expectAccessible(boPage, 'viewer team');

    // Ana removes Bo; Bo's next request is refused and the dashboard says so.
    await anaPage.reload();
    await anaPage.getByRole('heading', { level: 1, name: 'Team' }).waitFor();
    const row = anaPage.getByTestId('members').locator('tr', { hasText: bo.email });
    await row.getByRole('button', { name: 'Remove' }).click();
    await row.getByRole('button', { name: 'Yes, remove' }).click();
    await row.waitFor({ state: 'detached' });
    await go(boPage, 'History');
    await expect
      .poll(() => boPage.getByRole('alert').first().innerText())
      .toMatch(/sign in again|not allowed/i);
    await boPage.reload();
    await boPage.getByRole('button', { name: 'Sign in', exact: true }).waitFor();

    const actions = await auditEntries(t.db, { workspaceId });
    expect(actions.map((a) => a.action)).toEqual(
      expect.arrayContaining([
        'workspace.created',
        'invitation.created',
        'invitation.accepted',
        'member.removed',
      ]),
    );
    expect(pageErrors).toEqual([]);
    await anaContext.close();
    await boContext.close();
  }, 180_000);
});

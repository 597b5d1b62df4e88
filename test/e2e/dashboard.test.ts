import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_DIST } from '../../src/infra/http/dashboard.ts';
import type { SandboxManifest } from '../../src/sandbox/manifest.ts';
import { startSimulator, type Simulator } from '../../simulator/server.ts';
import { accessibilityViolations, browserAvailable, launchBrowser } from '../helpers/browser.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { seededSandbox } from './seeded-sandbox.ts';
import { COMPOSITE_GRADE_CUTOFFS_V2, GRADE_HYSTERESIS } from '../../src/scoring/engine/index.ts';

/**
 * The web dashboard (dashboard/, served at /app/) in Debian's Chromium against a live sandbox: the
 * seeded demo data, the job workers running and the platform simulator for OAuth. One browser and one
 * sandbox for the whole file (seeding is the slow part). Screenshots for the README are written to
 * docs/img only when UPDATE_SCREENSHOTS=1.
 */
const SHOTS = process.env.UPDATE_SCREENSHOTS === '1' && process.env.TEST_DB !== 'postgres';

describe.runIf(browserAvailable)('the web dashboard in a real browser', () => {
  let sim: Simulator;
  let t: TestService;
  let m: SandboxManifest;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  // Every URL any page of the dashboard asked for, and every console line: no key may appear in either.
  const urls: string[] = [];
  const consoleLines: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!fs.existsSync(path.join(DASHBOARD_DIST, 'index.html'))) {
      throw new Error('dashboard/dist is missing: `npm install` builds it (or `npm run build:dashboard`)');
    }
    sim = await startSimulator({ speed: 0 });
    const seeded = await seededSandbox();
    m = seeded.manifest;
    t = await startTestService(
      { runWorkers: true, simulatorUrl: sim.url },
      {},
      { database: seeded.database },
    );
    await t.service.startWorkers();
    base = await t.listen();
    browser = await launchBrowser();
    // bypassCSP only so the test can inject axe-core; the page's own CSP is checked separately.
    context = await browser.newContext({ viewport: { width: 1200, height: 900 }, bypassCSP: true });
    context.on('request', (r) => urls.push(r.url()));
    context.on('page', (p) => {
      p.on('console', (c) => consoleLines.push(c.text()));
      p.on('pageerror', (e) => pageErrors.push(e.message));
    });
  }, 900_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await sim?.close();
  });

  /** A sandbox person (sandbox.json's `people`) signs in with email and password, in a fresh page. */
  async function signIn(person: string): Promise<Page> {
    const who = m.people![person]!;
    // One browser context for the file: the previous test's person is signed out first.
    await context.clearCookies();
    const page = await context.newPage();
    await page.goto(`${base}/app/`);
    await page.getByLabel('Email', { exact: true }).fill(who.email);
    await page.getByLabel('Password', { exact: true }).fill(who.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForSelector('nav[aria-label="Views"]');
    return page;
  }
  /** TACSI subscribers have keys and no people: the sign-in page's subscriber-key entry. */
  async function openWithSubscriberKey(key: string, wait = true): Promise<Page> {
    await context.clearCookies();
    const page = await context.newPage();
    await page.goto(`${base}/app/`);
    await page.getByText('TACSI subscribers: open the index with your subscriber key').click();
    await page.getByLabel('Subscriber key').fill(key);
    await page.getByRole('button', { name: 'Open the TACSI index' }).click();
    if (wait) await page.waitForSelector('nav[aria-label="Views"]');
    return page;
  }
  async function go(page: Page, view: string): Promise<void> {
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: view }).click();
    await page.getByRole('heading', { level: 1, name: view }).waitFor();
  }
  async function navLinks(page: Page): Promise<string[]> {
    return page.getByRole('navigation', { name: 'Views' }).getByRole('link').allInnerTexts();
  }
  /** axe-core's WCAG 2 A/AA rules on the page as it is now: no violation. */
  async function expectAccessible(page: Page, what: string): Promise<void> {
    expect(await accessibilityViolations(page), what).toEqual([]);
  }
  /** What people read on the page (technical details folded away) names no endpoint, key header or raw id. */
  async function expectNoApiSpeak(page: Page): Promise<void> {
    // innerText leaves out a closed <details>; the request id (in <code>) is for support, not reading.
    const text = await page.evaluate<string>(
      `(() => { const c = document.body.cloneNode(true); c.querySelectorAll('code').forEach((e) => e.remove()); document.body.append(c); const t = c.innerText; c.remove(); return t; })()`,
    );
    expect(text).not.toMatch(
      /\b(GET|POST|PATCH|DELETE) \/v1\/|Authorization: Bearer|\b[a-z]{2,5}_[0-9A-Z]{26}\b/,
    );
  }
  async function shot(page: Page, name: string): Promise<void> {
    if (!SHOTS) return;
    await page.waitForTimeout(300);
    await page.screenshot({ path: `docs/img/dashboard-${name}.png`, fullPage: true });
  }

  it('serves the build at /app/ with a same-origin CSP and no referrer', async () => {
    const res = await fetch(`${base}/app/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await res.text()).toContain('<div id="root">');
    const bare = await fetch(`${base}/app`, { redirect: 'manual' });
    expect(bare.headers.get('location')).toBe('/app/');
  });

  it('explains a refused sign-in in words, with the request id; a key opens the TACSI view only', async () => {
    await context.clearCookies();
    const page = await context.newPage();
    await page.goto(`${base}/app/`);
    // People sign in with their email: there is no API-key sign-in for workspaces.
    expect(await page.getByLabel('API key').count()).toBe(0);
    await expectAccessible(page, 'sign-in');
    await shot(page, 'signin');
    await page.getByLabel('Email', { exact: true }).fill(m.people!['pro-owner']!.email);
    await page.getByLabel('Password', { exact: true }).fill('not-the-password-at-all');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.innerText()).toContain('The email or password is not right');
    expect(await page.getByTestId('request-id').innerText()).toMatch(/^req_/);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.close();

    // A revoked key is not accepted; a workspace key is sent to the email sign-in, in words.
    const revoked = await openWithSubscriberKey(m.keys.revoked, false);
    await expect.poll(() => revoked.getByRole('alert').innerText()).toContain('was not accepted');
    await revoked.getByLabel('Subscriber key').fill(m.keys.pro);
    await revoked.getByRole('button', { name: 'Open the TACSI index' }).click();
    await expect
      .poll(() => revoked.getByRole('alert').innerText())
      .toContain('This is not a TACSI subscriber key');
    expect(await revoked.evaluate(() => sessionStorage.length)).toBe(0);
    await revoked.close();
  });

  it('says when the score stands on old data, and what data and interval it stands on', async () => {
    const page = await signIn('pro-owner');
    await page.getByTestId('composite').waitFor();
    expect(await page.getByTestId('stale').count()).toBe(0);
    const basis = await page.getByTestId('score-basis').innerText();
    expect(basis).toMatch(
      /^90% interval \d+\.\d to \d+\.\d · the \d+ days of data up to (\d{4}-\d{2}-\d{2})$/,
    );
    const dataDay = /data up to (\S+)$/.exec(basis)![1]!;
    await page.close();
    // Ten days on with no new data: the same score is now stale, and the page says so. (The session
    // would have idled out over ten days: the person signs in again.)
    t.setNow(new Date(Date.now() + 10 * 86_400_000));
    try {
      const later = await signIn('pro-owner');
      await later.getByTestId('stale').waitFor();
      expect(await later.getByTestId('stale').innerText()).toContain(`data up to ${dataDay}`);
      await later.close();
    } finally {
      t.setNow(undefined);
    }
  });

  it('explains the score: what 50 is, the grade bands from the engine, the interval, the window, hysteresis and the benchmark', async () => {
    const page = await signIn('pro-owner');
    const legend = page.getByTestId('score-legend');
    await legend.waitFor();
    expect(await legend.innerText()).toContain('50 is the median account');
    // The bands are the engine's own cutoffs (served by GET /v1/score), best first.
    const rows = await page.getByTestId('grade-bands').locator('tbody tr').allInnerTexts();
    const c = COMPOSITE_GRADE_CUTOFFS_V2;
    expect(rows.map((r) => r.replace(/\s+/g, ' ').trim())).toEqual([
      `elite ${c.elite} and above 5%`,
      `strong ${c.strong} up to ${c.elite} 20%`,
      `moderate ${c.moderate} up to ${c.strong} 50%`,
      `weak ${c.weak} up to ${c.moderate} 20%`,
      `critical below ${c.weak} 5%`,
    ]);
    expect(await page.getByTestId('legend-baseline').innerText()).toMatch(
      /Benchmarks: version \d{4}\.\d+ \(\d{4}-\d{2}-\d{2}\), all industries; the reference population is modelled/,
    );
    expect(await page.getByTestId('legend-interval').innerText()).toMatch(
      /with 90% confidence the score lies between \d+\.\d and \d+\.\d/,
    );
    expect(await page.getByTestId('legend-lookback').innerText()).toMatch(
      /stands on the \d+ days of data up to \d{4}-\d{2}-\d{2}, the look-back of the latest audit/,
    );
    expect(await page.getByTestId('legend-hysteresis').innerText()).toContain(
      `passes a cutoff by ${GRADE_HYSTERESIS} points`,
    );
    // The sandbox's brands have sectors: the benchmark is the published average with its margin.
    await page.getByTestId('legend-benchmark').waitFor();
    expect(await page.getByTestId('legend-benchmark').innerText()).toMatch(
      /published average is \d+(\.\d+)? ± \d+(\.\d+)? \(95% margin\)/,
    );
    await expectAccessible(page, 'score legend');
    await page.close();
  });

  it("a Free workspace's refusal names the plan that allows it, in words", async () => {
    const page = await signIn('free-owner');
    const alert = page.getByRole('alert').first();
    await expect.poll(() => alert.innerText()).toContain('The Pro plan and above do.');
    await expectNoApiSpeak(page);
    await page.close();
  });

  it('a Pro owner: workspace, history and audits, and no agency or TACSI views', async () => {
    const page = await signIn('pro-owner');
    expect(await navLinks(page)).toEqual([
      'Workspace',
      'History',
      'Audits',
      'Platforms',
      'Account',
      'Team',
      'Single sign-on',
    ]);
    expect(await page.getByTestId('who').innerText()).toContain('Acme Outdoor');
    await page.getByTestId('composite').waitFor();
    expect(await page.getByTestId('composite').innerText()).toMatch(/^\d+\.\d [a-z]+$/);
    await page.getByTestId('pillars-chart').locator('svg').waitFor();
    await page.locator('table').getByRole('rowheader', { name: 'Instagram' }).waitFor();
    await expectAccessible(page, 'workspace');
    await shot(page, 'workspace');

    // Views the key may not see are not offered, and their addresses show nothing.
    for (const hidden of ['agency', 'tacsi', 'campaigns', 'webhooks', 'alerts', 'reports']) {
      await page.goto(`${base}/app/#/${hidden}`);
      await page.getByRole('heading', { level: 1, name: 'Not available' }).waitFor();
    }

    // The Team view: an owner sees the members and manages invitations, keys and the audit log.
    await go(page, 'Team');
    await page.getByTestId('members').locator('tbody tr').first().waitFor();
    expect(await page.getByTestId('members').locator('tbody tr').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('team-read-only').count()).toBe(0);
    await expectAccessible(page, 'team');

    await go(page, 'History');
    await page.getByLabel('Granularity').selectOption('monthly');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByText(/Score and pillars, monthly/).waitFor();
    await page.getByTestId('history-chart').locator('svg').waitFor();
    await expectAccessible(page, 'history');

    // Past audits come from GET /v1/audits: the sandbox's seeded audits are listed before any is run here.
    type Listed = { audits: Array<{ audit_id: string; status: string; completed_at: string | null }> };
    const apiAudits = async () => {
      const res = await fetch(`${base}/v1/audits?limit=100`, {
        headers: { authorization: `Bearer ${m.keys.pro}` },
      });
      return ((await res.json()) as Listed).audits;
    };
    const seeded = await apiAudits();
    expect(seeded.length).toBeGreaterThan(0);
    await go(page, 'Audits');
    const pastLinks = () =>
      page
        .getByTestId('audit-list')
        .locator('tbody a')
        .evaluateAll((links) =>
          links.map((a) => decodeURIComponent(a.getAttribute('href')!.split('/').at(-1)!)),
        );
    await expect.poll(pastLinks).toEqual(seeded.slice(0, 10).map((a) => a.audit_id));
    await expectNoApiSpeak(page);

    // Run an audit and watch it complete: the SDK polls, waiting as Retry-After says.
    await page.getByRole('button', { name: 'Run audit' }).click();
    await page.locator('progress').waitFor();
    await page.getByTestId('audit-done').waitFor({ timeout: 120_000 });
    expect(await page.getByTestId('audit-done').innerText()).toMatch(/^Audit completed: score \d/);
    await page.getByRole('link', { name: 'Open the audit' }).click();
    await page.getByTestId('benchmark').waitFor();
    await page.getByRole('heading', { name: 'Recommendations' }).waitFor();
    // The audit's drivers, in words: what lifts the score and what holds it back, no metric codes.
    await page.getByTestId('audit-drivers').locator('li').first().waitFor();
    expect(await page.getByTestId('audit-drivers').innerText()).not.toMatch(/\b[a-z]+_[a-z_]+\b/);
    await expectAccessible(page, 'audit detail');
    await shot(page, 'audit');
    const ran = decodeURIComponent(new URL(page.url()).hash.split('/').at(-1)!);
    expect(ran).toMatch(/^aud_/);
    await go(page, 'Audits');
    await expect.poll(async () => (await pastLinks())[0]).toBe(ran);
    expect(await pastLinks()).toHaveLength(Math.min(10, seeded.length + 1));

    // The history marks every completed audit of the last year among its notes and events (listed under
    // the chart, each on the chart as a marker); the workspace shows the latest's recommendations, with a link to it.
    const yearAgo = new Date(Date.now() - 365 * 86_400_000).toISOString().slice(0, 10);
    const marked = (await apiAudits()).filter(
      (a) => a.status === 'completed' && a.completed_at!.slice(0, 10) >= yearAgo,
    ).length;
    expect(marked).toBeGreaterThan(1);
    await go(page, 'History');
    const notes = page.getByTestId('history-notes');
    await notes.waitFor();
    expect(await notes.locator('li[data-kind="audit_completed"]').count()).toBe(marked);
    expect(await notes.locator('li[data-source="service"]').first().innerText()).toContain(
      'recorded by the service',
    );
    // A note added in the form is listed as the key's own, and counted among the chart's markers.
    const before = await notes.locator('li').count();
    await page.getByLabel('Note', { exact: true }).fill('Trail shoe launch');
    await page.getByLabel('Category').selectOption('launch');
    await page.getByLabel('Author (optional)').fill('Dana');
    await page.getByRole('button', { name: 'Add note' }).click();
    const added = page
      .getByTestId('history-notes')
      .locator('li[data-source="user"]', { hasText: 'Trail shoe launch' });
    await added.waitFor();
    expect(await added.innerText()).toContain('(launch, Dana)');
    expect(await page.getByTestId('history-notes').locator('li').count()).toBe(before + 1);
    expect(await page.getByTestId('history-chart').getAttribute('aria-label')).toContain(
      `with ${before + 1} notes and events`,
    );
    await page.getByText(/note\(s\) and event\(s\) marked/).waitFor();
    await expectAccessible(page, 'history with notes');
    await shot(page, 'history');
    await go(page, 'Workspace');
    await page.getByTestId('recommendations').locator('li').first().waitFor();
    // "What moves your score": the current score's top drivers as sentences.
    const moves = page.getByRole('region', { name: 'What moves your score' });
    await moves.locator('li').first().waitFor();
    expect(await moves.locator('li').count()).toBeLessThanOrEqual(6);
    expect(await moves.innerText()).toMatch(/What (lifts it|holds it back)/);
    expect(await moves.locator('li').first().innerText()).toMatch(
      /(lifts the score|holds the score back) \d+\.\d points/,
    );
    expect(await moves.innerText()).not.toMatch(/\b[a-z]+_[a-z_]+\b/);
    expect(
      await page.getByRole('region', { name: 'Latest recommendations' }).locator('a').getAttribute('href'),
    ).toBe(`#/audits/${ran}`);
    await page.close();
  }, 240_000);

  it('an agency owner: connect a platform through the simulator, campaigns, studio, webhooks, clients', async () => {
    const page = await signIn('agency-owner');
    expect(await navLinks(page)).toEqual([
      'Workspace',
      'History',
      'Audits',
      'Platforms',
      'Campaigns',
      'Content studio',
      'Webhooks',
      'Alerts',
      'Reports',
      'Agency',
      'Account',
      'Team',
      'Single sign-on',
    ]);

    await go(page, 'Platforms');
    await page.getByRole('button', { name: 'Connect Youtube' }).click();
    await expect
      .poll(
        () =>
          page
            .getByTestId('platform-message')
            .innerText()
            .catch(() => ''),
        { timeout: 60_000 },
      )
      .toMatch(/^Youtube is connected as /);
    await page.getByTestId('platform-youtube').getByText('Healthy').waitFor();
    const row = await t.db
      .selectFrom('platform_connections')
      .select(['status'])
      .where('workspace_id', '=', m.workspaces.agency)
      .where('platform', '=', 'youtube')
      .where('status', '=', 'connected')
      .execute();
    expect(row).toHaveLength(1);
    await expectAccessible(page, 'platforms');
    await shot(page, 'platforms');

    await go(page, 'Campaigns');
    await page.getByLabel('Name').fill('Spring launch');
    await page.getByLabel('Weeks').fill('8');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    const card = page.getByTestId('campaigns').locator('li.card', { hasText: 'Spring launch' });
    await card.waitFor();
    expect(await card.locator('.phase').allInnerTexts()).toHaveLength(4);
    await expectAccessible(page, 'campaigns');
    await shot(page, 'campaigns');
    await card.getByRole('button', { name: 'Cancel Spring launch' }).click();
    // Cancelling asks first; keeping it changes nothing.
    await card.getByRole('button', { name: 'Keep the campaign' }).click();
    await card.getByRole('button', { name: 'Cancel Spring launch' }).click();
    await card.getByRole('button', { name: 'Yes, cancel Spring launch' }).click();
    // Cancelled campaigns leave the default list and are shown when asked for.
    await card.waitFor({ state: 'detached' });
    await page.getByLabel('Show').selectOption('cancelled');
    await card.getByText('cancelled', { exact: true }).waitFor();

    await go(page, 'Content studio');
    await page
      .getByLabel('Text of the draft')
      .fill(
        'Our new trail shoe is here! Lighter, grippier and made from recycled materials. What do you think?',
      );
    await page.getByRole('button', { name: 'Score the draft' }).click();
    await page.getByTestId('draft-score').waitFor();
    expect(await page.getByTestId('suggestions').locator('li').count()).toBeGreaterThan(0);
    // Uncalibrated pillar effects are shown as directions, never as numbers.
    expect(await page.getByTestId('pillar-outlook').textContent()).toMatch(
      /presence (up|down|no clear effect)/,
    );
    expect(await page.getByTestId('pillar-outlook').textContent()).not.toMatch(/[+-]\d/);
    await expectAccessible(page, 'studio');
    await shot(page, 'studio');

    await go(page, 'Webhooks');
    await page.getByLabel('Endpoint URL (https)').fill('https://93.184.215.14/hooks/brand-health');
    await page.getByLabel('score.changed').check();
    await page.getByRole('button', { name: 'Register' }).click();
    expect(await page.getByTestId('hook-secret').innerText()).toMatch(/^whsec_/);
    await page.getByTestId('webhooks').getByText('https://93.184.215.14/hooks/brand-health').waitFor();
    await page.getByRole('button', { name: 'Deliveries' }).click();
    await page.getByTestId('deliveries').waitFor();
    await expectAccessible(page, 'webhooks');
    await shot(page, 'webhooks');

    await go(page, 'Alerts');
    await page.getByLabel('Name').fill('Score under 30');
    await page.getByLabel('Condition').selectOption('score_below');
    await page.getByLabel('Below').fill('30');
    await page.getByLabel('Send alert.triggered / alert.resolved to subscribed webhooks').check();
    await page.getByRole('button', { name: 'Add alert' }).click();
    await page.getByTestId('alerts').getByText('score below 30').waitFor();
    await page.getByRole('button', { name: 'History' }).click();
    await page.getByTestId('alert-history').waitFor();
    // Turned off (PATCH enabled: false) the rule stays, marked off; turned on again it is back.
    const alertRow = page.getByTestId('alerts').locator('tr', { hasText: 'Score under 30' });
    await alertRow.getByRole('button', { name: 'Turn off' }).click();
    await alertRow.getByText('off (ok)').waitFor();
    await alertRow.getByRole('button', { name: 'Turn on' }).click();
    await alertRow.getByRole('button', { name: 'Turn off' }).waitFor();
    await expectAccessible(page, 'alerts');
    await shot(page, 'alerts');

    // Reports: schedule one, generate the last period's report, download its PDF.
    await go(page, 'Reports');
    await page.getByLabel('Name (optional)').fill('Weekly brand report');
    await page.getByLabel('Recipients (comma-separated emails)').fill('cmo@client.example');
    await page.getByRole('button', { name: 'Schedule' }).click();
    const schedule = page.getByTestId('report-schedules').locator('tr', { hasText: 'Weekly brand report' });
    await schedule.waitFor();
    expect(await schedule.innerText()).toContain('cmo@client.example');
    await schedule.getByRole('button', { name: 'Generate last period' }).click();
    await page
      .getByRole('status')
      .getByText(/^Report of \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}: /)
      .waitFor();
    const pdfButton = page.getByTestId('reports').getByRole('button', { name: 'PDF' }).first();
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return pdfButton.isEnabled().catch(() => false);
        },
        { timeout: 60_000 },
      )
      .toBe(true);
    const pdfDownload = page.waitForEvent('download');
    await pdfButton.click();
    const pdfFile = await (await pdfDownload).path();
    expect(fs.readFileSync(pdfFile).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    await expectAccessible(page, 'reports');
    await expectNoApiSpeak(page);
    await shot(page, 'reports');

    await go(page, 'Agency');
    const clients = page.getByTestId('clients');
    await clients.getByRole('rowheader', { name: 'Bluebird Coffee' }).waitFor();
    expect(await clients.getByRole('rowheader').allInnerTexts()).toEqual(
      expect.arrayContaining(['Bluebird Coffee', 'Juniper Skincare', 'Maya Creates']),
    );
    // Another agency's clients never appear.
    expect(await clients.innerText()).not.toContain('Harbor Bikes');
    await page.getByTestId('score-log').waitFor();
    await expectAccessible(page, 'agency');
    await shot(page, 'agency');

    // CSV: the button asks with Accept: text/csv; the file comes when the API serves CSV.
    const asked = await fetch(`${base}/v1/export/clients`, {
      headers: { authorization: `Bearer ${m.keys.agency}`, accept: 'text/csv' },
    });
    const csvServed = (asked.headers.get('content-type') ?? '').startsWith('text/csv');
    if (csvServed) {
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Clients CSV' }).click();
      const file = await (await download).path();
      expect(fs.readFileSync(file, 'utf8')).toContain('Bluebird Coffee');
    } else {
      await page.getByRole('button', { name: 'Clients CSV' }).click();
      await expect.poll(() => page.getByRole('alert').innerText()).toMatch(/instead of CSV|406|not/i);
    }

    // Open a client's view: the workspace views then show that client.
    await clients.getByRole('button', { name: 'Open Bluebird Coffee' }).click();
    await page.getByText('Viewing client').waitFor();
    await page.getByTestId('composite').waitFor();
    await go(page, 'Platforms');
    await page.getByTestId('platform-tiktok').getByText('Healthy').waitFor();
    await page.close();
  }, 240_000);

  it('a TACSI key sees its licensed sectors only, with margins, daily series and the archive', async () => {
    const page = await openWithSubscriberKey(m.keys.tacsiSectorFeed);
    expect(await navLinks(page)).toEqual(['TACSI index']);
    await page.goto(`${base}/app/#/workspace`);
    await page.getByRole('heading', { level: 1, name: 'Not available' }).waitFor();
    // The licensed sectors are listed (GET /v1/tacsi/sectors), and nothing else.
    const sectorLinks = (p: Page) => p.getByTestId('tacsi-sectors').getByRole('link').allInnerTexts();
    await page.goto(`${base}/app/#/tacsi/${m.tacsi.unlicensedSector}`);
    await page.getByTestId('tacsi-sectors').waitFor();
    expect(await sectorLinks(page)).toEqual(['Fashion & Apparel']);
    // Another sector asked for by address: the uniform denial, nothing else.
    await page.getByTestId('tacsi-denied').waitFor();
    expect(await page.getByTestId('tacsi-index').count()).toBe(0);
    expect(await page.getByTestId('tacsi-archive').count()).toBe(0);
    expect(await page.locator('main').innerText()).not.toMatch(/Food|Home|Consumer Electronics|Luxury/);

    await page.getByTestId('tacsi-sectors').getByRole('link', { name: 'Fashion & Apparel' }).click();
    expect(page.url()).toContain(`#/tacsi/${m.tacsi.licensedSector}`);
    await page.getByTestId('tacsi-index').locator('svg').waitFor();
    expect(await page.getByTestId('tacsi-denied').count()).toBe(0);
    // A sector feed has no daily add-on: no daily chart.
    expect(await page.getByTestId('tacsi-daily').count()).toBe(0);
    await page.getByTestId('methodology').waitFor();

    // Page the archive.
    const firstWeek = () => page.getByTestId('tacsi-archive').locator('tbody tr td').first().innerText();
    const newest = await firstWeek();
    await page.getByRole('button', { name: 'Older' }).click();
    await expect.poll(firstWeek).not.toBe(newest);
    expect((await firstWeek()) < newest).toBe(true);
    await page.getByRole('button', { name: 'Newer' }).click();
    await expect.poll(firstWeek).toBe(newest);
    await expectAccessible(page, 'tacsi');
    await page.close();

    // The Daily add-on's sector opens first, with the daily series.
    const daily = await openWithSubscriberKey(m.keys.tacsiDaily);
    await daily.getByTestId('tacsi-sectors').waitFor();
    expect(await sectorLinks(daily)).toEqual(['Food & Beverage']);
    await daily.getByTestId('tacsi-daily').locator('svg').waitFor();
    // A pillar feed: that pillar's chart only.
    const pillar = await openWithSubscriberKey(m.keys.tacsiPillar);
    await pillar.getByTestId('tacsi-sectors').waitFor();
    expect(await sectorLinks(pillar)).toEqual(['Consumer Electronics']);
    await pillar.getByRole('heading', { name: 'Sentiment', level: 3 }).waitFor();
    expect(await pillar.getByTestId('tacsi-index').count()).toBe(0);
    await pillar.close();
    await shot(daily, 'tacsi');
    await daily.close();
  }, 180_000);

  it('TACSI: an unpublished sector says so, changes inside the margin are marked, pillar charts share a scale', async () => {
    const page = await openWithSubscriberKey(m.keys.tacsiFull);
    // A licensed sector below the cohort minimum: never published, and the page says so instead of a blank.
    await page.goto(`${base}/app/#/tacsi/${m.tacsi.smallSector}`);
    await page.getByTestId('tacsi-unpublished').waitFor();
    expect(await page.getByTestId('tacsi-unpublished').innerText()).toContain('Nothing has been published');
    expect(await page.getByTestId('tacsi-index').count()).toBe(0);
    expect(await page.getByTestId('tacsi-denied').count()).toBe(0);

    await page.goto(`${base}/app/#/tacsi/${m.tacsi.licensedSector}`);
    await page.getByTestId('tacsi-index').locator('svg').waitFor();
    // Every change in the archive is either outside the margin of a difference, or marked as inside it.
    const rows = await page.getByTestId('tacsi-archive').locator('tbody tr').all();
    for (const row of rows) {
      const cells = await row.locator('td').allInnerTexts();
      const margin = Number(cells[2]) * Math.SQRT2;
      const change = cells[3]!;
      if (change === '—') continue;
      const delta = Number(change.split(' ')[0]);
      if (Math.abs(delta) <= Math.round(margin * 100) / 100) expect(change).toContain('no clear change');
      else expect(change).not.toContain('no clear change');
    }
    // All five pillars on one y-scale.
    await page.getByRole('heading', { name: 'Momentum', level: 3 }).waitFor();
    expect(await page.getByTestId('tacsi-pillar-scale').innerText()).toMatch(/the same scale, \d+ to \d+/);
    await expectAccessible(page, 'tacsi full');
    await page.close();
  }, 180_000);

  it('every action on the Platforms view completes or explains itself, in words', async () => {
    const page = await signIn('agency-owner');
    await go(page, 'Platforms');
    const cards = page.locator('li.card[data-testid^="platform-"]');
    await cards.first().waitFor();
    // Sync now is offered only where there is a sign-in to sync with, and then it starts a sync.
    for (const sync of await page.getByRole('button', { name: /^Sync .* now$/ }).all()) {
      const name = (await sync.innerText()).replace(/^Sync (.*) now$/, '$1');
      await sync.click();
      await expect
        .poll(async () =>
          (await page.getByTestId('platform-message').count())
            ? page.getByTestId('platform-message').innerText()
            : page
                .getByRole('alert')
                .innerText()
                .catch(() => ''),
        )
        .toMatch(new RegExp(`A sync of ${name} was started|synced a moment ago`));
      await expectNoApiSpeak(page);
    }
    // A card without Sync now says why, and offers what would give it one.
    for (const card of await cards.all()) {
      if (!(await card.getByRole('button', { name: /^Disconnect / }).count())) continue;
      if (await card.getByRole('button', { name: /^Sync .* now$/ }).count()) continue;
      const why = await card.innerText();
      expect(why).toMatch(/imported|Reconnect/);
    }
    // Disconnect asks first, then frees the place; Connect is offered again.
    const card = page.getByTestId('platform-youtube');
    await card.getByRole('button', { name: 'Disconnect Youtube' }).click();
    await card.getByRole('button', { name: 'Yes, disconnect Youtube' }).click();
    await expect
      .poll(() => page.getByTestId('platform-message').innerText())
      .toContain('Youtube is disconnected');
    await card.getByRole('button', { name: 'Connect Youtube' }).waitFor();
    await expectNoApiSpeak(page);
    await page.close();
  }, 120_000);

  it('fits a 375 px wide phone', async () => {
    const page = await signIn('agency-owner');
    await page.setViewportSize({ width: 375, height: 800 });
    for (const view of ['Workspace', 'Agency', 'Webhooks']) {
      await page.goto(`${base}/app/#/${view.toLowerCase()}`);
      await page.getByRole('heading', { level: 1, name: view }).waitFor();
      await page.waitForTimeout(300);
      const width = await page.evaluate(
        () =>
          (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
            .documentElement.scrollWidth,
      );
      expect(width, view).toBeLessThanOrEqual(375);
    }
    await shot(page, 'phone');
    await page.close();
  });

  it('a viewer reads and is offered no action the role cannot complete', async () => {
    const page = await signIn('pro-viewer');
    expect(await navLinks(page)).toEqual(['Workspace', 'History', 'Audits', 'Platforms', 'Account', 'Team']);
    expect(await page.getByTestId('who').innerText()).toContain('viewer');
    await page.getByTestId('composite').waitFor();
    await go(page, 'Audits');
    await page.getByTestId('role-note').waitFor();
    expect(await page.getByRole('button', { name: 'Run audit' }).count()).toBe(0);
    await go(page, 'Platforms');
    await page.getByTestId('role-note').waitFor();
    expect(await page.getByRole('button', { name: /^(Connect|Disconnect|Sync|Reconnect) / }).count()).toBe(0);
    await go(page, 'Team');
    await page.getByTestId('team-read-only').waitFor();
    await page.goto(`${base}/app/#/sso`);
    await page.getByRole('heading', { level: 1, name: 'Not available' }).waitFor();
    await expectAccessible(page, 'viewer');
    await expectNoApiSpeak(page);
    await page.close();
  });

  it('never puts a key in a URL, a cookie or the console', async () => {
    expect(urls.length).toBeGreaterThan(50);
    const keys = Object.values(m.keys);
    for (const url of urls) for (const key of keys) expect(url).not.toContain(key);
    for (const line of consoleLines) for (const key of keys) expect(line).not.toContain(key);
    // The cookies are the session's (HttpOnly: the page never reads it) and the connect flow's binding
    // cookies (an HttpOnly nonce scoped to one callback path: docs/ingestion.md "Connecting an
    // account"), never a key.
    for (const cookie of await context.cookies()) {
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
      if (cookie.name === 'bh_session') expect(cookie.path).toBe('/');
      else {
        expect(cookie.name).toMatch(/^bh_connect_[a-z]+$/);
        expect(cookie.path).toMatch(/^\/v1\/platforms\/[a-z]+\/callback$/);
      }
      for (const key of keys) expect(cookie.value).not.toContain(key);
    }
    expect(pageErrors).toEqual([]);
  });
});

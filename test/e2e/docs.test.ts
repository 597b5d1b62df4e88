import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, launchBrowser } from '../helpers/browser.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

describe.runIf(browserAvailable)('the docs UI in a real browser', () => {
  let t: TestService;
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    t = await startTestService();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('renders /docs with the API operations from /openapi.json', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // The page's CSP (src/infra/http/doc-pages.ts) must not block anything it needs.
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) errors.push(m.text());
    });
    await page.goto(`${base}/docs`);
    await page.waitForSelector('.opblock-summary-path', { timeout: 20_000 });
    const paths = await page.$$eval('.opblock-summary-path', (els) =>
      els.map((e) => e.textContent?.trim() ?? ''),
    );
    expect(paths).toContain('/v1/workspace');
    expect(paths).toContain('/v1/platforms');
    expect(await page.title()).toMatch(/Swagger|API/i);
    fs.mkdirSync('.tmp', { recursive: true });
    await page.screenshot({ path: '.tmp/docs.png' });
    expect(errors).toEqual([]);
  }, 60_000);
});

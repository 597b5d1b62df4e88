import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, launchBrowser } from '../helpers/browser.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';

// The README's screenshot is rewritten only on request (UPDATE_SCREENSHOTS=1), so a test run leaves the tree clean.
const SCREENSHOT =
  process.env.UPDATE_SCREENSHOTS === '1' ? 'docs/img/api-reference.png' : '.tmp/api-reference.png';
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

type Json = Record<string, unknown>;

/** Every "METHOD /path" of an OpenAPI document. */
function operations(doc: Json): string[] {
  const out: string[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const method of Object.keys(item))
      if (METHODS.includes(method)) out.push(`${method.toUpperCase()} ${path}`);
  }
  return out.sort();
}

/** The string values of every example under a node (following local $refs). */
function exampleStrings(node: unknown, doc: Json, seen = new Set<unknown>()): string[] {
  if (!node || typeof node !== 'object' || seen.has(node)) return [];
  seen.add(node);
  const leaves = (value: unknown): string[] =>
    typeof value === 'string'
      ? [value]
      : value && typeof value === 'object'
        ? Object.values(value).flatMap(leaves)
        : [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/')) {
      const target = value
        .slice(2)
        .split('/')
        .reduce<unknown>((at, part) => (at as Json | undefined)?.[part], doc);
      out.push(...exampleStrings(target, doc, seen));
    } else if (key === 'example' || key === 'examples') out.push(...leaves(value));
    else out.push(...exampleStrings(value, doc, seen));
  }
  return out;
}

describe.runIf(browserAvailable)('the Scalar API reference in a real browser', () => {
  let t: TestService;
  let browser: Browser;
  let base: string;
  let key: string;
  let page: Page;
  /** Requests the page tried to send anywhere but this service (all refused). */
  const outside: string[] = [];
  const errors: string[] = [];
  const apiCalls: Array<{ method: string; url: string; authorization: string | undefined }> = [];

  beforeAll(async () => {
    t = await startTestService();
    ({ key } = await workspaceWithKey(t.db, { plan: 'pro', name: 'Reference Browser Co' }));
    base = await t.listen();
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (e) => errors.push(e.message));
    // The page's CSP (src/infra/http/doc-pages.ts) must not block anything it needs.
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) errors.push(m.text());
    });
    // No outside network: anything not addressed to this service is recorded and refused.
    await page.route('**/*', (route) => {
      const request = route.request();
      if (!request.url().startsWith(`${base}/`)) {
        outside.push(request.url());
        return route.abort();
      }
      if (new URL(request.url()).pathname.startsWith('/v1/')) {
        apiCalls.push({
          method: request.method(),
          url: request.url(),
          authorization: request.headers().authorization,
        });
      }
      return route.continue();
    });
    await page.goto(`${base}/reference/`);
    await page.waitForSelector('[data-sidebar-id$="/GET/v1/workspace"]', { timeout: 30_000 });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('lists every operation of /openapi.json', async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as Json;
    const listed = await page.$$eval('[data-sidebar-id]', (els) =>
      els
        .map((e) =>
          /\/(GET|PUT|POST|DELETE|PATCH|HEAD|OPTIONS|TRACE)(\/.*)$/.exec(e.getAttribute('data-sidebar-id')!),
        )
        .filter((m) => m !== null)
        .map((m) => `${m[1]} ${m[2]}`),
    );
    const ops = operations(doc);
    const unique = [...new Set(listed)].sort();
    expect(unique.filter((o) => ops.includes(o))).toEqual(ops);
    // The rest are the document's webhooks (the events), one POST each; Scalar writes _ as -.
    const events = unique.filter((o) => !ops.includes(o));
    expect(events.every((o) => o.startsWith('POST /'))).toBe(true);
    expect(events.map((o) => o.slice('POST /'.length)).sort()).toEqual(
      Object.keys(doc.webhooks as Json)
        .map((name) => name.replace(/_/g, '-'))
        .sort(),
    );
    expect(await page.title()).toBe('Brand Health API reference');
  });

  it('shows the document’s examples in the request example, and the screenshot for the README', async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as Json;
    // The first operation whose request body carries examples.
    const [operation, examples] = operations(doc)
      .map((op) => {
        const [method, path] = op.split(' ') as [string, string];
        const item = (doc.paths as Record<string, Json>)[path]![method.toLowerCase()] as Json;
        return [op, exampleStrings(item.requestBody, doc)] as const;
      })
      .find(([, found]) => found.length > 0)!;
    expect(examples.length).toBeGreaterThan(0);
    const [method, path] = operation.split(' ');
    await page.locator(`[data-sidebar-id$="/${method}${path}"] a`).click();
    const section = page.locator(`section[id$="/${method}${path}"]`);
    await section.getByText('Request Example').waitFor({ timeout: 20_000 });
    const text = await section.innerText();
    expect(
      examples.filter((e) => text.includes(e)),
      `${operation} shows none of ${examples}`,
    ).not.toEqual([]);
    fs.mkdirSync(SCREENSHOT.slice(0, SCREENSHOT.lastIndexOf('/')), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    expect(fs.statSync(SCREENSHOT).size).toBeGreaterThan(10_000);
  });

  it('lets a user paste a sandbox key and call the API from the page', async () => {
    await page.locator('[data-sidebar-id$="/GET/v1/workspace"] a').click();
    const section = page.locator('section[id$="/GET/v1/workspace"]');
    await section.getByRole('button', { name: /Test Request/ }).click();
    // The request client opens with the operation; its Authentication panel takes the key.
    await page.getByRole('dialog').getByPlaceholder('Token').first().fill(key);
    const calls = apiCalls.length;
    await page.getByRole('button', { name: /^Send/ }).first().click();
    await page.getByText('Reference Browser Co').first().waitFor({ timeout: 20_000 });
    expect(apiCalls.slice(calls)).toEqual([
      { method: 'GET', url: `${base}/v1/workspace`, authorization: `Bearer ${key}` },
    ]);
    await expect(page.getByText('200 OK').first().isVisible()).resolves.toBe(true);
  });

  it('needed nothing from outside this service, and raised no page errors', () => {
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
  });
});

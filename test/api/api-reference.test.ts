import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';

// /reference is served by Scalar's plugin loaded on the first request (src/infra/http/api-reference.ts):
// the page, its bundled script and the document come through the service's own routes, and a path the
// plugin does not serve is the service's problem 404. (The browser test checks the rendered page.)
describe('the API reference routes', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(async () => t?.close());

  it('sends a browser at / to the dashboard and a program to the map of the service', async () => {
    const browser = await t.request({
      method: 'GET',
      url: '/',
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(browser.statusCode).toBe(302);
    expect(browser.headers.location).toBe('/app/');

    const program = await t.request({ method: 'GET', url: '/', headers: { accept: 'application/json' } });
    expect(program.statusCode).toBe(200);
    expect(program.json()).toEqual({
      service: 'brand-health',
      dashboard: '/app/',
      api_reference: '/reference',
      openapi: '/openapi.json',
      health: '/healthz',
      readiness: '/readyz',
    });
    for (const path of ['/app/', '/reference/', '/openapi.json', '/healthz']) {
      expect((await t.request({ method: 'GET', url: path })).statusCode, path).toBe(200);
    }
  });

  it('redirects /reference to the page, which loads the bundled script and the served document', async () => {
    const bare = await t.request({ method: 'GET', url: '/reference' });
    expect(bare.statusCode).toBe(301);
    expect(bare.headers.location).toBe('/reference/');

    const page = await t.request({ method: 'GET', url: '/reference/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('Brand Health API reference');
    expect(page.body).toContain('js/scalar.js');

    const script = await t.request({ method: 'GET', url: '/reference/js/scalar.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toContain('application/javascript');
    expect(script.body.length).toBeGreaterThan(1_000_000);

    const document = await t.request({ method: 'GET', url: '/reference/openapi.json' });
    const served = await t.request({ method: 'GET', url: '/openapi.json' });
    expect(document.statusCode).toBe(200);
    expect(document.json()).toEqual(served.json());
  });

  // Both pages share the dashboard's origin (and its session storage, where the dashboard keeps the
  // key): each gets a Content-Security-Policy that its bundle works under offline, and no framing.
  it('serves /reference with a CSP allowing only its own scripts and the hash of its inline bootstrap', async () => {
    const page = await t.request({ method: 'GET', url: '/reference/' });
    const csp = String(page.headers['content-security-policy']);
    const scriptSrc = /script-src ([^;]+)/.exec(csp)![1]!;
    const inline = [...page.body.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
      (m) => m[1]!,
    );
    expect(inline).toHaveLength(1);
    const hash = createHash('sha256').update(inline[0]!).digest('base64');
    expect(scriptSrc.split(' ').sort()).toEqual([`'self'`, `'sha256-${hash}'`].sort());
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("object-src 'none'");
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const script = await t.request({ method: 'GET', url: '/reference/js/scalar.js' });
    expect(script.headers['x-content-type-options']).toBe('nosniff');
  });

  it('serves /docs (Swagger UI) with a CSP allowing only its own scripts, which is all the page loads', async () => {
    const page = await t.request({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    const csp = String(page.headers['content-security-policy']);
    expect(/script-src ([^;]+)/.exec(csp)![1]).toBe("'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(page.headers['x-frame-options']).toBe('DENY');
    // Every script of the page is a file of this origin (nothing inline the policy would block).
    const scripts = [...page.body.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const attributes of scripts) expect(attributes).toMatch(/src="\.\/static\//);
    const initializer = await t.request({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(initializer.statusCode).toBe(200);
    expect(initializer.headers['content-security-policy']).toBeDefined();
  });

  it('answers a path it does not serve with the service’s own 404 problem', async () => {
    const res = await t.request({ method: 'GET', url: '/reference/no-such-file.js' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('application/problem+json');
  });
});

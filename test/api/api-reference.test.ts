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

  it('answers a path it does not serve with the service’s own 404 problem', async () => {
    const res = await t.request({ method: 'GET', url: '/reference/no-such-file.js' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('application/problem+json');
  });
});

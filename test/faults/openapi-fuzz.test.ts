import { createRequire } from 'node:module';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/keys.ts';
import { connectPlatform } from '../../src/admin/platforms.ts';
import { createSubscriber, grantEntitlement } from '../../src/admin/tacsi.ts';
import { createSector, createWorkspace } from '../../src/admin/workspaces.ts';
import { runJob, seedMetrics } from '../api/audits.fixtures.ts';
import { insertSyntheticWeeklyCells } from '../api/tacsi-fixture.ts';
import { signedInPerson, type Browser } from '../helpers/people.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { anyValue, HOSTILE_STRINGS, invalidValue, validValue, type JsonSchema } from './schema-arbitrary.ts';

// Property-based fuzz of every operation in GET /openapi.json: path parameters, query strings and
// bodies drawn from the operation's own JSON Schemas, valid and invalid, sent with keys that pass
// the plan checks (an Enterprise agency key; a Full Database TACSI key for /v1/tacsi). For every
// answer: no 5xx, the status is documented for the operation, errors are problem+json, and a 2xx
// body validates against the documented response schema (Ajv 2020 + formats).
//
// The top-level `ajv` package in node_modules is v6 (eslint's); ajv-formats depends on Ajv 8,
// so Ajv is loaded from ajv-formats' own resolution, whatever the install layout.
const requireFromFormats = createRequire(createRequire(import.meta.url).resolve('ajv-formats'));
const Ajv2020 = requireFromFormats('ajv/dist/2020').default as new (options: object) => {
  compile(schema: object): ((data: unknown) => boolean) & { errors?: unknown };
};
const addFormats = requireFromFormats('ajv-formats').default ?? requireFromFormats('ajv-formats');

/** Answered by the router before any route runs (a path parameter over 200 characters): not per operation. */
const ROUTER_STATUSES = new Set([414]);
const RUNS_PER_OPERATION = Number(process.env.FUZZ_RUNS ?? 30);
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);

interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  required?: boolean;
  schema: JsonSchema;
}
interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body: JsonSchema | null;
  responses: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
}
interface FuzzRequest {
  url: string;
  payload: string | undefined;
}

let t: TestService;
let doc: any;
let workspaceKey: string;
let tacsiKey: string;
/** The agency's owner, signed in: managing people and keys is for sessions only (no key scope grants it). */
let owner: Browser;
/**
 * Paths only a signed-in person may call (src/core/permissions.ts PEOPLE_ONLY_ACTIONS, and the person's own
 * passkeys, session and workspaces of their own). Signing out is left to the key (it would end the fuzz's session).
 */
const PEOPLE_PATHS =
  /^\/v1\/(members|invitations|keys|audit-log|workspace\/sso)(\/|$)|^\/v1\/auth\/(passkeys|session|workspaces)(\/|$)/;
/** Real values for parameters and body fields, so a share of requests reach existing objects and answer 2xx. */
const known: Record<string, unknown[]> = {};

function lastSundayBefore(day: Date): string {
  const d = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() - 1));
  d.setUTCDate(d.getUTCDate() - d.getUTCDay());
  return d.toISOString().slice(0, 10);
}

beforeAll(async () => {
  // Platform OAuth clients point at a simulator address nobody listens on: connecting only builds an
  // authorisation URL, and without any client configured connect would answer 503 (operator set-up).
  t = await startTestService(
    { allowLoopbackFetch: true },
    { AUTH_CACHE_TTL_MS: '5000', SIMULATOR_URL: 'http://127.0.0.1:9' },
  );
  const agency = await workspaceWithKey(
    t.db,
    { plan: 'enterprise', accountType: 'agency', name: 'Fuzz agency' },
    { platforms: [{ platform: 'instagram' }, { platform: 'tiktok' }] },
  );
  workspaceKey = agency.key;
  const client = await createWorkspace(t.db, {
    name: 'Fuzz client',
    plan: 'pro',
    parentId: agency.workspace.id,
  });
  await connectPlatform(t.db, {
    workspaceId: client.id,
    platform: 'instagram',
    handle: '@fuzz_client',
    followers: 900,
  });
  await seedMetrics(t.db, agency.workspace.id, { platforms: ['instagram', 'tiktok'], days: 60 });
  await seedMetrics(t.db, client.id, { platforms: ['instagram'], days: 60 });

  const post = async (url: string, payload: object) => {
    const res = await t.request({ method: 'POST', url, key: workspaceKey, payload });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const completed = (await post('/v1/audit/run', {})).audit_id;
  expect(await runJob(t.ctx, completed)).toBe('completed');
  const processing = (await post('/v1/audit/run', { workspace_id: client.id })).audit_id;
  const campaign = (await post('/v1/campaigns', { name: 'Fuzz campaign', start_date: '2099-01-05' })).id;
  const webhook = (
    await post('/v1/webhooks', { url: 'https://127.0.0.1:9/hook', events: ['audit.completed'] })
  ).id;

  // An alert, a report schedule and a generated report, so their paths reach real objects too.
  const created = async (url: string, payload?: object) => {
    const res = await t.request({ method: 'POST', url, key: workspaceKey, ...(payload ? { payload } : {}) });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  };
  const alert = (
    await created('/v1/alerts', {
      name: 'Fuzz alert',
      condition: 'score_below',
      threshold: 40,
      webhook: true,
    })
  ).id;
  const schedule = (
    await created('/v1/report-schedules', {
      name: 'Fuzz report',
      cadence: 'weekly',
      recipients: ['fuzz@example.com'],
    })
  ).id;
  const report = (await created(`/v1/report-schedules/${schedule}/generate`)).id;

  // A team to manage: the owner (the fuzz's session), a viewer to change or remove, a pending invitation.
  owner = await signedInPerson(t, { workspaceId: agency.workspace.id, role: 'owner' });
  const viewer = await signedInPerson(t, { workspaceId: agency.workspace.id, role: 'viewer' });
  const invitation = await owner.request('POST', '/v1/invitations', {
    email: 'fuzz-invitee@example.com',
    role: 'member',
  });
  expect(invitation.statusCode, invitation.body).toBe(201);

  await createSector(t.db, 'fuzz-sector', 'Fuzz sector');
  await insertSyntheticWeeklyCells(t.db, 'fuzz-sector', lastSundayBefore(new Date()), 8);
  const subscriber = await createSubscriber(t.db, 'Fuzz subscriber');
  await grantEntitlement(t.db, { subscriberId: subscriber, kind: 'full_database' });
  tacsiKey = (await createApiKey(t.db, { subscriberId: subscriber }, { scopes: ['read'] })).key;

  Object.assign(known, {
    audit_id: [completed, processing],
    campaign_id: [campaign],
    id: [webhook, invitation.json().id],
    person_id: [viewer.personId],
    alert_id: [alert],
    schedule_id: [schedule],
    report_id: [report],
    workspace_id: [agency.workspace.id, client.id],
    sector: ['fuzz-sector', 'headline'],
    pillar: ['reach', 'sentiment'],
    // Body fields.
    url: ['https://127.0.0.1:9/fuzz'],
    webhook_url: ['https://127.0.0.1:9/audit-hook'],
    events: [['audit.completed'], ['score.changed', 'campaign.phase_changed']],
    start_date: ['2099-03-02', '2099-03-02T10:00:00Z'],
    platforms: [['instagram'], ['instagram', 'tiktok']],
    content: ['A great launch day for our brand! #launch @friends', 'https://127.0.0.1:9/none.png'],
    name: ['Fuzzed campaign'],
  });
  doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
});
afterAll(async () => t?.close());

function operations(): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      ops.push({
        method: method.toUpperCase(),
        path,
        parameters: op.parameters ?? [],
        body: op.requestBody?.content?.['application/json']?.schema ?? null,
        responses: op.responses ?? {},
      });
    }
  }
  return ops;
}

/** A parameter value as text: known real values, schema-valid values, or garbage. */
function parameterText(parameter: Parameter): fc.Arbitrary<string | string[]> {
  const text = (v: unknown): string | string[] =>
    Array.isArray(v)
      ? v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x)))
      : typeof v === 'string'
        ? v
        : JSON.stringify(v);
  const choices: Array<{ weight: number; arbitrary: fc.Arbitrary<string | string[]> }> = [
    { weight: 3, arbitrary: anyValue(parameter.schema, doc).map(text) },
    { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  ];
  const real = known[parameter.name]?.filter((v): v is string => typeof v === 'string');
  if (real?.length) choices.push({ weight: 3, arbitrary: fc.constantFrom(...real) });
  return fc.oneof(...choices);
}

function requestFor(op: Operation): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  const path = fc.tuple(...pathParams.map(parameterText)).map((values) => {
    let url = op.path;
    pathParams.forEach((p, i) => {
      const v = values[i]!;
      url = url.replace(`{${p.name}}`, encodeURIComponent(Array.isArray(v) ? v.join(',') : v));
    });
    return url;
  });
  const query = fc
    .tuple(
      fc.tuple(...queryParams.map((p) => fc.option(parameterText(p), { freq: 2 }))),
      // Now and then a parameter the operation does not know.
      fc.oneof(
        { weight: 8, arbitrary: fc.constant(null) },
        {
          weight: 1,
          arbitrary: fc.tuple(fc.string({ minLength: 1, maxLength: 10 }), fc.string({ maxLength: 10 })),
        },
      ),
    )
    .map(([values, extra]) => {
      const search = new URLSearchParams();
      queryParams.forEach((p, i) => {
        const v = values[i];
        if (v === null || v === undefined) return;
        for (const item of Array.isArray(v) ? v : [v]) search.append(p.name, item);
      });
      if (extra) search.append(extra[0], extra[1]);
      const s = search.toString();
      return s ? `?${s}` : '';
    });
  const body: fc.Arbitrary<string | undefined> = op.body
    ? fc.oneof(
        { weight: 3, arbitrary: validValue(op.body, doc, known).map((v) => JSON.stringify(v)) },
        { weight: 2, arbitrary: invalidValue(op.body, doc, known).map((v) => JSON.stringify(v)) },
        { weight: 1, arbitrary: fc.constantFrom<string | undefined>(undefined, '{', '[]', '""', 'null') },
      )
    : fc.constant(undefined);
  return fc.record({ url: fc.tuple(path, query).map(([p, q]) => p + q), payload: body });
}

describe('OpenAPI fuzz', () => {
  it('answers every generated request with a documented, well-formed response and never a 5xx', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(ajv);
    const validators = new Map<string, ReturnType<typeof ajv.compile>>();
    const validatorFor = (schema: JsonSchema) => {
      const key = JSON.stringify(schema);
      let v = validators.get(key);
      if (!v) {
        // Local refs (#/components/...) resolve against the document's components.
        v = ajv.compile({ ...schema, components: doc.components });
        validators.set(key, v);
      }
      return v;
    };

    const ops = operations();
    expect(ops.length).toBeGreaterThan(20);
    const failures: string[] = [];
    const statuses: Record<string, Record<number, number>> = {};
    for (const op of ops) {
      const name = `${op.method} ${op.path}`;
      const seen: Record<number, number> = (statuses[name] = {});
      const session = PEOPLE_PATHS.test(op.path);
      const key = op.path.startsWith('/v1/tacsi') ? tacsiKey : workspaceKey;
      try {
        await fc.assert(
          fc.asyncProperty(requestFor(op), async (req) => {
            const headers: Record<string, string> = {
              ...(req.payload !== undefined ? { 'content-type': 'application/json' } : {}),
              ...(session ? { cookie: `bh_session=${owner.cookie}`, 'x-csrf-token': owner.csrf } : {}),
            };
            const res = await t.request({
              method: op.method as 'GET',
              url: req.url,
              ...(session ? {} : { key }),
              headers,
              ...(req.payload !== undefined ? { payload: req.payload } : {}),
            });
            const status = res.statusCode;
            seen[status] = (seen[status] ?? 0) + 1;
            const where = `${status} ${res.body.slice(0, 400)}`;
            expect(status, where).toBeLessThan(500);
            const documented = op.responses[String(status)];
            if (!ROUTER_STATUSES.has(status)) {
              expect(
                documented,
                `status ${status} is not documented: ${res.body.slice(0, 200)}`,
              ).toBeDefined();
            }
            const contentType = String(res.headers['content-type'] ?? '');
            if (status >= 400) {
              expect(contentType, where).toMatch(/^application\/problem\+json/);
              expect(res.json(), where).toMatchObject({
                type: expect.any(String),
                title: expect.any(String),
                status,
                detail: expect.any(String),
              });
            } else if (status >= 200 && status < 300) {
              const schema = documented?.content?.['application/json']?.schema;
              expect(schema, `no response schema for ${status}`).toBeDefined();
              expect(contentType, where).toMatch(/^application\/json/);
              const validate = validatorFor(schema!);
              const body = res.json();
              expect(validate(body), `${where}\n${JSON.stringify(validate.errors)}`).toBe(true);
            }
          }),
          { numRuns: RUNS_PER_OPERATION, seed: SEED, endOnFailure: true, includeErrorInReport: true },
        );
      } catch (error) {
        failures.push(`${name}: ${(error as Error).message.slice(0, 1500)}`);
      }
    }
    console.info(
      'fuzz statuses per operation:\n' +
        Object.entries(statuses)
          .map(([name, s]) => `  ${name} ${JSON.stringify(s)}`)
          .join('\n'),
    );
    expect(failures).toEqual([]);
    // The fuzz reached real objects: at least one 2xx on most operations.
    const all = Object.values(statuses);
    const with2xx = all.filter((s) => Object.keys(s).some((k) => k.startsWith('2'))).length;
    expect(with2xx).toBeGreaterThan(all.length / 2);
  });
});

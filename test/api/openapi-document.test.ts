import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';

// What a generator needs from the served document: nothing it must send has a default
// (an input with a default is optional), and every operation is named, described and exampled.
// Spectral and Redocly (`npm run lint:openapi`) check the rest of the document's shape.

type Json = Record<string, any>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

function resolve(document: Json, schema: Json): Json {
  let s = schema;
  for (let hops = 0; typeof s?.$ref === 'string' && hops < 10; hops++) {
    s = s.$ref
      .slice(2)
      .split('/')
      .reduce((node: Json, key: string) => node?.[key.replaceAll('~1', '/').replaceAll('~0', '~')], document);
  }
  return s ?? {};
}

/** Every required property (anywhere in the document) that declares a default, as JSON paths. */
function requiredWithDefault(document: Json): string[] {
  const found: string[] = [];
  const walk = (node: unknown, path: string) => {
    if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${path}[${i}]`));
    if (!node || typeof node !== 'object') return;
    const object = node as Json;
    if (Array.isArray(object.required) && object.properties) {
      for (const name of object.required) {
        const property = object.properties[name];
        if (property && resolve(document, property).default !== undefined) found.push(`${path}.${name}`);
      }
    }
    // A required parameter with a default.
    if (
      object.in &&
      object.name &&
      object.required === true &&
      resolve(document, object.schema).default !== undefined
    ) {
      found.push(`${path} (${object.in} ${object.name})`);
    }
    for (const [key, value] of Object.entries(object)) walk(value, `${path}.${key}`);
  };
  walk(document, '$');
  return found;
}

interface Operation {
  label: string;
  operation: Json;
}

function operations(document: Json): Operation[] {
  return Object.entries<Json>(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({
      label: `${method.toUpperCase()} ${path}`,
      operation: item[method],
    })),
  );
}

/** An example, or a binary body (a file such as Parquet), which no JSON or text example can show. */
const hasExample = (media: Json) =>
  media.example !== undefined ||
  (media.examples && Object.keys(media.examples).length > 0) ||
  media.schema?.format === 'binary';

/** What is missing from an operation: operationId, description, an example per body and answer. */
function operationGaps(document: Json): string[] {
  const gaps: string[] = [];
  const ids = new Map<string, string>();
  for (const { label, operation } of operations(document)) {
    const id = operation.operationId;
    if (typeof id !== 'string' || !/^[a-z]+[A-Z][A-Za-z]*$/.test(id))
      gaps.push(`${label}: operationId ${id}`);
    else if (ids.has(id)) gaps.push(`${label}: operationId ${id} also on ${ids.get(id)}`);
    else ids.set(id, label);
    if (typeof operation.description !== 'string' || operation.description.trim().length < 20) {
      gaps.push(`${label}: description`);
    }
    for (const [type, media] of Object.entries<Json>(operation.requestBody?.content ?? {})) {
      if (!hasExample(media)) gaps.push(`${label}: request ${type} example`);
    }
    for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
      const answer = resolve(document, response);
      if (!answer.description || answer.description === 'Default Response') {
        gaps.push(`${label} ${status}: description`);
      }
      for (const [type, media] of Object.entries<Json>(answer.content ?? {})) {
        if (!hasExample(media)) gaps.push(`${label} ${status}: ${type} example`);
      }
    }
  }
  return gaps;
}

let t: TestService;
let document: Json;
beforeAll(async () => {
  t = await startTestService();
  const res = await t.request({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  document = res.json();
});
afterAll(async () => t?.close());

describe('GET /openapi.json', () => {
  it('marks no field or parameter with a default as required', () => {
    expect(operations(document).length).toBeGreaterThan(20);
    expect(requiredWithDefault(document)).toEqual([]);
  });

  it('gives every operation a camelCase operationId, a description and examples', () => {
    expect(operationGaps(document)).toEqual([]);
  });

  it('documents the optional inputs the issue found marked required as optional', () => {
    const parameter = (path: string, name: string) =>
      document.paths[path].get.parameters.find((p: Json) => p.name === name);
    expect(parameter('/v1/score', 'include_pillars').required).toBe(false);
    expect(parameter('/v1/score/history', 'granularity').required).toBe(false);
    expect(parameter('/v1/campaigns', 'limit').required).toBe(false);
    expect(parameter('/v1/campaigns', 'offset').required).toBe(false);
    expect(document.paths['/v1/audit/run'].post.requestBody.required).toBe(false);
    const create = document.paths['/v1/campaigns'].post.requestBody.content['application/json'].schema;
    expect(resolve(document, create).required).not.toContain('duration_weeks');
  });

  // The checks themselves must catch what they look for: the served document, spoiled once each way.
  it('catches a required default, a missing operationId, description or example', () => {
    const spoiled: Json = structuredClone(document);
    const score = spoiled.paths['/v1/score'].get;
    score.parameters.find((p: Json) => p.name === 'include_pillars').required = true;
    const body = resolve(
      spoiled,
      spoiled.paths['/v1/campaigns'].post.requestBody.content['application/json'].schema,
    );
    body.required = [...body.required, 'duration_weeks'];
    expect(requiredWithDefault(spoiled)).toEqual([
      expect.stringContaining('include_pillars'),
      expect.stringContaining('duration_weeks'),
    ]);
    delete score.operationId;
    score.description = '';
    delete score.responses['200'].content['application/json'].example;
    expect(operationGaps(spoiled)).toEqual([
      'GET /v1/score: operationId undefined',
      'GET /v1/score: description',
      'GET /v1/score 200: application/json example',
    ]);
  });
});

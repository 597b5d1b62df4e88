import type { RouteOptions } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The handler honours `Idempotency-Key` (idempotent() refuses to run on a route without it). */
    idempotencyKey?: true;
    /** The route answers with an ETag and honours `If-None-Match` (304). */
    conditional?: true;
    /** The request body may be omitted altogether (every field of it is optional). */
    optionalBody?: true;
    /** The 200 is also CSV (Accept: text/csv); 'link': a CSV page points at the next with Link. */
    csv?: true | 'link';
  }
}

/**
 * Response and request headers the service's hooks add to every route of a kind: documented once
 * here, from the route's config, instead of in each route schema (where Fastify would also validate
 * request headers, with its own errors instead of the idempotency layer's).
 */
const H = {
  requestId: {
    type: 'string',
    maxLength: 64,
    pattern: '^[A-Za-z0-9._:-]{1,64}$',
    description: 'The request id (the one sent, when it is 1-64 of A-Z a-z 0-9 . _ : -); quote it to support',
  },
  rateLimit: {
    type: 'string',
    maxLength: 100,
    pattern: '^"per-key";r=\\d+;t=\\d+$',
    description:
      'draft-ietf-httpapi-ratelimit-headers: requests left (r) in this window and seconds until it resets (t)',
  },
  rateLimitPolicy: {
    type: 'string',
    maxLength: 100,
    pattern: '^"per-key";q=\\d+;w=\\d+$',
    description: 'the quota (q requests per w seconds) of this key: its plan, or the TACSI subscriber limit',
  },
  retryAfter: {
    type: 'string',
    maxLength: 10,
    pattern: '^\\d+$',
    description: 'seconds to wait before retrying',
  },
  etag: {
    type: 'string',
    maxLength: 100,
    pattern: '^(W/)?"[^"]*"$',
    description: 'validator of the body; send it back as If-None-Match',
  },
  cacheControl: {
    type: 'string',
    maxLength: 100,
    enum: ['private, no-cache'],
    description: 'revalidate with If-None-Match before reusing a stored copy',
  },
  vary: {
    type: 'string',
    maxLength: 20,
    enum: ['Accept'],
    description: 'the answer is JSON or, with Accept: text/csv, CSV',
  },
  link: {
    type: 'string',
    maxLength: 2048,
    description:
      'CSV answers only, while there is a next page (the JSON body has hasMore and nextBefore): `<URL of the next page>; rel="next"` (RFC 8288)',
  },
  replayed: {
    type: 'string',
    maxLength: 4,
    enum: ['true'],
    description: 'present when this is the stored answer to an earlier request with the same Idempotency-Key',
  },
  wwwAuthenticate: {
    type: 'string',
    maxLength: 100,
    enum: ['Bearer realm="brand-health"'],
    description: 'the authentication scheme to use',
  },
} as const;

const REQUEST_HEADERS = {
  idempotencyKey: {
    type: 'string',
    minLength: 1,
    maxLength: 255,
    pattern: '^[\\x21-\\x7e]{1,255}$',
    description:
      'Makes the POST safe to retry: the same key and body within 24 hours replays the first answer (Idempotent-Replayed: true); the same key with another body is 422, while the first still runs 409.',
    examples: ['3f0c6a1e-2b5d-4c8e-9a7f-1d2e3f4a5b6c'],
  },
  ifNoneMatch: {
    type: 'string',
    maxLength: 1000,
    pattern: '^(\\*|(W/)?"[^"]*"(\\s*,\\s*(W/)?"[^"]*")*)$',
    description: 'the ETag of a copy you hold: 304 Not Modified while it is current',
    examples: ['"b1946ac92492d2347c6235b4d2611184"'],
  },
};

type Json = Record<string, any>;

/** Where documentRoute parks a response's non-JSON media types until finishDocument places them. */
const MORE_CONTENT = 'x-more-content';

function responseHeaders(status: number, route: RouteOptions): Json {
  const config = (route.config ?? {}) as Json;
  const headers: Json = { 'X-Request-Id': H.requestId };
  const authenticated = config.auth !== undefined;
  // The rate limit is counted (and its headers set) once the key is known: every answer but 401.
  if (authenticated && status !== 401 && status < 500) {
    headers.RateLimit = H.rateLimit;
    headers['RateLimit-Policy'] = H.rateLimitPolicy;
  }
  if (status === 401) headers['WWW-Authenticate'] = H.wwwAuthenticate;
  if (status === 425 || status === 429 || status === 503) headers['Retry-After'] = H.retryAfter;
  if (config.conditional && (status === 200 || status === 304)) {
    headers.ETag = H.etag;
    headers['Cache-Control'] = H.cacheControl;
  }
  if (config.idempotencyKey && status < 300) headers['Idempotent-Replayed'] = H.replayed;
  if (config.csv && status === 200) headers.Vary = H.vary;
  if (config.csv === 'link' && status === 200) headers.Link = H.link;
  return headers;
}

/**
 * The plugin resolves schema ids (named components) only in a response's plain schema, not inside
 * `content`: a JSON response is handed over as its schema (an `$id` nested under allOf becomes a
 * component) with the example; problem+json keeps its media type and points at the component.
 */
function documentResponse(response: Json, headers: Json): Json {
  const media = response.content?.['application/json'];
  if (media) {
    const schema = media.schema.$id ? { allOf: [media.schema] } : { ...media.schema };
    // Other representations (text/csv) have no named schemas: finishDocument puts them beside JSON.
    const { 'application/json': _json, ...others } = response.content;
    const more = Object.keys(others).length > 0 ? { [MORE_CONTENT]: others } : {};
    return { ...schema, examples: [media.example], description: response.description, headers, ...more };
  }
  const problem = response.content?.['application/problem+json'];
  if (problem?.schema?.$id === 'Problem') {
    return {
      ...response,
      headers,
      content: {
        'application/problem+json': { ...problem, schema: { $ref: '#/components/schemas/Problem' } },
      },
    };
  }
  // A body-less response (304) carries its headers beside its null schema.
  return { ...response, headers };
}

/**
 * @fastify/swagger `transform`: adds the documented headers to a route's schema, for the document
 * only (the route keeps its own schema for validation and serialisation).
 */
export function documentRoute({ schema, url, route }: { schema: Json; url: string; route: RouteOptions }) {
  if (!schema || schema.hide) return { schema, url };
  const config = (route.config ?? {}) as Json;
  const out: Json = { ...schema };
  const requestHeaders: Json = {};
  if (config.idempotencyKey) requestHeaders['Idempotency-Key'] = REQUEST_HEADERS.idempotencyKey;
  if (config.conditional) requestHeaders['If-None-Match'] = REQUEST_HEADERS.ifNoneMatch;
  if (Object.keys(requestHeaders).length > 0) {
    out.headers = { type: 'object', properties: requestHeaders };
  }
  if (schema.response) {
    out.response = {};
    for (const [code, response] of Object.entries<Json>(schema.response)) {
      out.response[code] = documentResponse(response, responseHeaders(Number(code), route));
    }
  }
  if (config.optionalBody) out['x-optional-body'] = true;
  // The action a workspace route performs (src/core/permissions.ts): which roles and scopes may call it.
  if (config.auth?.audience === 'workspace') out['x-permission'] = config.auth.action;
  return { schema: out, url };
}

/**
 * @fastify/swagger `transformObject`: what route schemas cannot say through the plugin. It marks
 * every request body required (Fastify itself needs one once a body schema exists); routes whose
 * body may be omitted (config.optionalBody, handled in their preValidation) say so here. And it names
 * components only in a response's plain (single media type) schema, so a second representation
 * (text/csv) of a route's response joins the JSON one here.
 */
export function finishDocument({ openapiObject }: { openapiObject: Json }): Json {
  for (const item of Object.values<Json>(openapiObject.paths ?? {})) {
    for (const operation of Object.values<Json>(item)) {
      for (const response of Object.values<Json>(operation?.responses ?? {})) {
        const json = response.content?.['application/json'];
        const more = json?.schema?.[MORE_CONTENT];
        if (more === undefined) continue;
        delete json.schema[MORE_CONTENT];
        Object.assign(response.content, more);
      }
      if (operation?.['x-optional-body'] === undefined) continue;
      delete operation['x-optional-body'];
      if (operation.requestBody) operation.requestBody.required = false;
    }
  }
  return openapiObject;
}

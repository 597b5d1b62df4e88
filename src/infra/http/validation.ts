import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifyInstance, FastifySchema, FastifyServerOptions } from 'fastify';

/**
 * Request validation, one rule per part of the request:
 * - JSON bodies are typed: Ajv never coerces them (`true`, `"90"` or `123` where a number, an
 *   integer or a string is expected is a 400 naming the field, not a silently converted value).
 * - Query strings and path parameters are text, so Ajv converts them to the schema's types, but a
 *   number must be written as plain decimal digits first: Ajv's own conversion (`+value`) accepts
 *   `Infinity`, `1e400`, `0x10` and ` 5`; the review saw such values reach the database and
 *   fail there (a 500) instead of being refused as input.
 * - A query parameter an API route does not declare is a 400 naming it (see
 *   `closeQueryStrings`).
 */

const BASE_OPTIONS = { removeAdditional: false, useDefaults: true, allErrors: false } as const;

const DECIMAL_INTEGER = /^-?\d{1,16}$/;
const DECIMAL_NUMBER = /^-?\d{1,16}(\.\d{1,16})?$/;

interface AjvError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message: string;
}

type Validate = ((data: unknown, context?: unknown) => unknown) & {
  errors?: AjvError[] | null;
  schemaEnv?: unknown;
};

type JsonSchema = Record<string, any>;

/** The numeric type a text parameter's schema asks for ('integer' or 'number'), if any. */
function numericType(schema: JsonSchema | undefined): 'integer' | 'number' | undefined {
  if (!schema) return undefined;
  const types = [schema.type, ...(schema.anyOf ?? []).map((s: JsonSchema) => s.type)].flat();
  if (types.includes('integer')) return 'integer';
  if (types.includes('number')) return 'number';
  return undefined;
}

/** Why a query or path value is not a number written the one accepted way, or null. */
function badNumber(text: string, type: 'integer' | 'number'): string | null {
  if (type === 'integer') {
    return DECIMAL_INTEGER.test(text) && Number.isSafeInteger(Number(text))
      ? null
      : 'must be a whole number written in decimal digits';
  }
  return DECIMAL_NUMBER.test(text) ? null : 'must be a number written in decimal digits';
}

/** Wraps a coercing validator of a query string or path parameters with the decimal check. */
function strictText(validate: Validate, schema: JsonSchema): Validate {
  const numeric: Array<[string, 'integer' | 'number', boolean]> = [];
  for (const [name, property] of Object.entries<JsonSchema>(schema.properties ?? {})) {
    const scalar = numericType(property);
    if (scalar) numeric.push([name, scalar, false]);
    else if (property.type === 'array') {
      const item = numericType(property.items);
      if (item) numeric.push([name, item, true]);
    }
  }
  if (numeric.length === 0) return validate;

  const wrapped: Validate = (data, context) => {
    if (data !== null && typeof data === 'object') {
      for (const [name, type] of numeric) {
        const value = (data as Record<string, unknown>)[name];
        for (const text of Array.isArray(value) ? value : [value]) {
          if (typeof text !== 'string') continue;
          const message = badNumber(text, type);
          if (message) {
            wrapped.errors = [
              {
                instancePath: `/${name}`,
                schemaPath: `#/properties/${name}`,
                keyword: 'type',
                params: { type },
                message,
              },
            ];
            return false;
          }
        }
      }
    }
    const ok = validate(data, context);
    wrapped.errors = validate.errors ?? null;
    return ok;
  };
  wrapped.schemaEnv = validate.schemaEnv;
  return wrapped;
}

type BuildValidator = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']
>;

const ajvPool = AjvCompiler();

interface RouteSchema {
  schema: object;
  httpPart?: string;
  method: string;
  url: string;
}

function buildValidatorFactory(externalSchemas: object, ajvOptions?: { customOptions?: object }) {
  const build = (coerceTypes: false | 'array') =>
    ajvPool(
      externalSchemas as never,
      {
        ...ajvOptions,
        customOptions: { ...ajvOptions?.customOptions, ...BASE_OPTIONS, coerceTypes },
      } as never,
    );
  const body = build(false);
  const text = build('array');
  return (route: RouteSchema) => {
    if (route.httpPart === 'body') return body(route as never);
    const validate = text(route as never) as unknown as Validate;
    return route.httpPart === 'querystring' || route.httpPart === 'params'
      ? strictText(validate, route.schema as JsonSchema)
      : validate;
  };
}

/** Fastify's validator factory with a non-coercing Ajv for bodies and a coercing one for text. */
export const buildValidator = buildValidatorFactory as unknown as BuildValidator;

const NO_QUERY = { type: 'object', properties: {}, additionalProperties: false };

/**
 * One rule for query strings: a parameter an API route (/v1/...) does not declare is refused.
 * Routes without a query schema get an empty closed one; declared object schemas are closed
 * unless they say otherwise. Health probes (a balancer may add a cache-busting parameter), the
 * /docs UI and /openapi.json are left alone.
 */
export function closeQueryStrings(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/v1/')) return;
    const schema = (route.schema ?? {}) as FastifySchema;
    const query = schema.querystring as JsonSchema | undefined;
    if (!query) route.schema = { ...schema, querystring: NO_QUERY };
    else if (query.type === 'object' && query.additionalProperties === undefined)
      route.schema = { ...schema, querystring: { ...query, additionalProperties: false } };
  });
}

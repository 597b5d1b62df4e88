import fc from 'fast-check';

/** A JSON Schema node as the OpenAPI document has it. */
export type JsonSchema = Record<string, any>;

const MAX_STRING = 80;
const MAX_ITEMS = 4;

/** Inputs that have broken parsers, validators and SQL before. */
export const HOSTILE_STRINGS = [
  '',
  ' ',
  '0',
  '-1',
  'null',
  'undefined',
  'true',
  '../../../etc/passwd',
  '..%2F..%2F',
  '%00',
  '\u0000',
  '\u202e\u0041',
  "' OR '1'='1' --",
  '"; DROP TABLE workspaces; --',
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  '{{7*7}}',
  '__proto__',
  'constructor',
  '🙂'.repeat(40),
  'x'.repeat(5000),
  '9'.repeat(400),
  '1e309',
  'NaN',
  '2024-02-30',
  '9999-99-99',
  '2030-01-01T25:61:00Z',
  'ws_01ZZZZZZZZZZZZZZZZZZZZZZZZ',
  'aud_\u0000',
];

function resolveRef(schema: JsonSchema, root: JsonSchema): JsonSchema {
  if (typeof schema.$ref !== 'string') return schema;
  const path = schema.$ref.replace(/^#\//, '').split('/');
  let node: any = root;
  for (const part of path) node = node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  if (!node) throw new Error(`unresolvable $ref ${schema.$ref}`);
  return resolveRef(node, root);
}

function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

const dates = fc.date({
  min: new Date('1990-01-01T00:00:00Z'),
  max: new Date('2100-12-31T00:00:00Z'),
  noInvalidDate: true,
});

/** Known good values of object properties, by property name (real ids, a reachable URL...). */
export type Hints = Record<string, unknown[]>;

/** Values that satisfy the schema (as far as its keywords go); object properties named in `hints` often take a hinted value. */
export function validValue(schema: JsonSchema, root: JsonSchema, hints: Hints = {}): fc.Arbitrary<unknown> {
  schema = resolveRef(schema, root);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) return fc.oneof(...union.map((s: JsonSchema) => validValue(s, root, hints)));
  if (Array.isArray(schema.type)) {
    return fc.oneof(...schema.type.map((type: string) => validValue({ ...schema, type }, root, hints)));
  }
  switch (schema.type) {
    case 'string': {
      const minLength = schema.minLength ?? 0;
      const maxLength = Math.min(schema.maxLength ?? MAX_STRING, MAX_STRING);
      if (schema.format === 'date') return dates.map(isoDay);
      if (schema.format === 'date-time') return dates.map((d) => d.toISOString());
      if (schema.format === 'uri') return fc.webUrl();
      if (typeof schema.pattern === 'string') {
        return fc
          .stringMatching(new RegExp(schema.pattern))
          .filter((s) => s.length >= minLength && s.length <= (schema.maxLength ?? Infinity));
      }
      return fc.oneof(
        fc.string({ minLength, maxLength: Math.max(minLength, maxLength) }),
        fc.string({ unit: 'grapheme', minLength, maxLength: Math.max(minLength, maxLength) }),
      );
    }
    case 'integer':
      return fc.integer({
        min: schema.minimum ?? -1_000_000,
        max: Math.min(schema.maximum ?? 1_000_000, 2 ** 31),
      });
    case 'number':
      return fc.double({
        min: schema.minimum ?? -1e6,
        max: schema.maximum ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(validValue(schema.items ?? {}, root, hints), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? MAX_ITEMS, MAX_ITEMS)),
      });
    case 'object': {
      const properties: Record<string, JsonSchema> = schema.properties ?? {};
      const required: string[] = schema.required ?? [];
      const model = Object.fromEntries(
        Object.entries(properties).map(([k, s]) => {
          const generated = validValue(s, root, hints);
          const hinted = hints[k];
          return [k, hinted?.length ? fc.oneof(fc.constantFrom(...hinted), generated) : generated];
        }),
      );
      return fc.record(model, { requiredKeys: required.filter((k) => k in properties) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Values that break the schema somewhere (wrong type, out of range, too long, extra or missing keys). */
export function invalidValue(schema: JsonSchema, root: JsonSchema, hints: Hints = {}): fc.Arbitrary<unknown> {
  schema = resolveRef(schema, root);
  const generic = fc.oneof(
    fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, 2 ** 53, -(2 ** 63), 1e308, [], {}, [null], {
      '': '',
    }),
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.jsonValue({ maxDepth: 3 }),
  );
  const specific: fc.Arbitrary<unknown>[] = [];
  if (schema.type === 'string' && typeof schema.maxLength === 'number') {
    specific.push(fc.integer({ min: 1, max: 50 }).map((n) => 'y'.repeat(schema.maxLength + n)));
  }
  if (schema.type === 'integer' || schema.type === 'number') {
    if (typeof schema.minimum === 'number') specific.push(fc.constant(schema.minimum - 1));
    if (typeof schema.maximum === 'number') specific.push(fc.constant(schema.maximum + 1));
    specific.push(fc.constantFrom('12abc', '0x10', ' 7 ', '1_000', '-0', 'Infinity'));
  }
  if (schema.type === 'array') {
    specific.push(fc.array(generic, { minLength: 1, maxLength: 3 }));
    if (typeof schema.maxItems === 'number') {
      specific.push(
        fc.array(validValue(schema.items ?? {}, root), {
          minLength: schema.maxItems + 1,
          maxLength: schema.maxItems + 3,
        }),
      );
    }
  }
  if (schema.type === 'object' && schema.properties) {
    const valid = validValue(schema, root, hints) as fc.Arbitrary<Record<string, unknown>>;
    // One property replaced by garbage.
    const keys = Object.keys(schema.properties);
    specific.push(
      fc.tuple(valid, fc.constantFrom(...keys), generic).map(([obj, key, junk]) => ({ ...obj, [key]: junk })),
    );
    // An unknown property.
    specific.push(
      fc
        .tuple(valid, fc.string({ minLength: 1, maxLength: 12 }))
        .map(([obj, key]) => ({ ...obj, [`x_${key}`]: 1 })),
    );
    // A required property missing.
    const required: string[] = schema.required ?? [];
    if (required.length) {
      specific.push(
        fc.tuple(valid, fc.constantFrom(...required)).map(([obj, key]) => {
          const copy = { ...obj };
          delete copy[key];
          return copy;
        }),
      );
    }
  }
  return specific.length ? fc.oneof(generic, ...specific) : generic;
}

/** Mostly valid, sometimes not: both halves of the input space. */
export function anyValue(schema: JsonSchema, root: JsonSchema, hints: Hints = {}): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 3, arbitrary: validValue(schema, root, hints) },
    { weight: 2, arbitrary: invalidValue(schema, root, hints) },
  );
}

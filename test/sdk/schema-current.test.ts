import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SDK_SCHEMA_PATH, sdkTypesFrom } from '../../scripts/sdk-types.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

// The SDK's types must be generated from the document this code serves: a route schema changed
// without `npm run sdk:generate` fails here (CI), instead of shipping an SDK that lies.
let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => t?.close());

it('sdk/src/schema.d.ts is what openapi-typescript generates from the served /openapi.json', async () => {
  const res = await t.request({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  const generated = await sdkTypesFrom(res.json());
  const committed = fs.readFileSync(SDK_SCHEMA_PATH, 'utf8');
  const a = committed.split('\n');
  const b = generated.split('\n');
  const first = a.findIndex((line, i) => line !== b[i]) + 1 || Math.min(a.length, b.length) + 1;
  expect(committed, `${SDK_SCHEMA_PATH} differs from line ${first}: run \`npm run sdk:generate\``).toBe(
    generated,
  );
});

// `npm run sdk:generate`: regenerates sdk/src/schema.d.ts from the served OpenAPI document.
import fs from 'node:fs';
import { SDK_SCHEMA_PATH, sdkTypesFrom, servedDocument } from './sdk-types.ts';

const types = await sdkTypesFrom(await servedDocument());
fs.writeFileSync(SDK_SCHEMA_PATH, types);
console.log(`${SDK_SCHEMA_PATH}: written (${types.split('\n').length} lines)`);

// Prints the served OpenAPI document (what GET /openapi.json answers) without listening: the app is
// built on an in-memory database, since route registration needs a context. Usage:
//   node scripts/openapi.ts [out.json]
import { writeFileSync } from 'node:fs';
import { loadConfig } from '../src/infra/config.ts';
import { createService } from '../src/service.ts';

const config = {
  ...loadConfig({ LOG_LEVEL: 'silent', RUN_WORKERS: 'false', METRICS_PORT: 'off', ADMIN_SOCKET: 'off' }),
  databaseUrl: null,
};
const service = await createService(config, { dataDir: 'memory://' });
try {
  const json = `${JSON.stringify(service.app.swagger(), null, 2)}\n`;
  const out = process.argv[2];
  if (out) writeFileSync(out, json);
  else process.stdout.write(json);
} finally {
  await service.stop();
}

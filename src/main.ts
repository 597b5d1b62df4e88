import module from 'node:module';
import { fileURLToPath } from 'node:url';
import { loadConfig } from './infra/config.ts';

// Node keeps each module's type-stripped source and compiled code in this folder (keyed by the
// source's hash) and reuses them at the next start: a third of the CPU of a restart (docs/performance.md,
// "Cold start"). Beside the code it caches, so it is exactly as trusted. NODE_COMPILE_CACHE=<dir> puts
// it elsewhere, NODE_DISABLE_COMPILE_CACHE=1 turns it off; an unwritable folder only means no cache.
// Enabled before the service's modules are imported (hence the dynamic import).
module.enableCompileCache(fileURLToPath(new URL('../.cache/node-compile', import.meta.url)));
const { serve } = await import('./serve.ts');

// `npm start`: the service on the environment's configuration (src/infra/config.ts).
await serve(() => loadConfig());
// Written now rather than at exit, which a killed process never reaches.
module.flushCompileCache();

import { loadConfig } from './infra/config.ts';
import { serve } from './serve.ts';

// `npm start`: the service on the environment's configuration (src/infra/config.ts).
await serve(() => loadConfig());

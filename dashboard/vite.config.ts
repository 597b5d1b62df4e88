import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The dashboard is served by the service at /app/ (src/infra/http/dashboard.ts); `npm install`
// builds it (the `prepare` script) into dashboard/dist.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/app/',
  // Preact's automatic JSX runtime (the tsconfig says the same for the type-checker).
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Never ship source maps: they would be served beside the bundle.
    sourcemap: false,
    chunkSizeWarningLimit: 900,
  },
  logLevel: 'warn',
});

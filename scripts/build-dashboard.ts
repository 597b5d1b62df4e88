/**
 * Builds the web dashboard (dashboard/ -> dashboard/dist) with Vite. Run by `npm install`/`npm ci`
 * (the `prepare` script), so the quick start's two commands serve it. An install without
 * devDependencies (`--omit=dev`) has no Vite: the build is skipped and the service runs without /app/.
 */
let vite: typeof import('vite');
try {
  vite = await import('vite');
} catch {
  console.log('dashboard: vite is not installed (devDependencies omitted); /app/ will not be served');
  process.exit(0);
}
await vite.build({ configFile: new URL('../dashboard/vite.config.ts', import.meta.url).pathname });
console.log('dashboard: built into dashboard/dist (served at /app/)');

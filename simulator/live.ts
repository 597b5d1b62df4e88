import fs from 'node:fs';
import { addDays, daysBetween, utcDay } from '../src/core/days.ts';
import { loadConfig } from '../src/infra/config.ts';
import { serve } from '../src/serve.ts';
import { startLocalTools } from './local-tools.ts';
import { startSimulator } from './server.ts';
import { connectThroughConsent } from './live-connect.ts';
import { demoStartDay, handOverToSimulator } from './live-history.ts';

/**
 * `npm run demo`, second half: a live sandbox. Starts the platform simulator in this process (a
 * simulated day per minute, its clock starting DEMO_SIM_DAYS_BEHIND days ago so for an hour every
 * minute brings a day the service has not seen; then it follows the real clock; a restart resumes
 * where the last run's clock had got to), runs the service
 * pointed at it (syncs every minute), hands the sandbox Agency workspace's platforms over to the
 * simulator (their seeded days after the simulator's today go; simulator/live-history.ts), then
 * connects them through the real consent flow over HTTP (connect -> the simulator's authorization
 * URL, which consents at once -> the service's callback -> first sync; simulator/live-connect.ts).
 * Watch GET /v1/platforms (last_sync, next_sync_at) and GET /v1/score (real-time: latest_data_day
 * moves a day a minute, `stale` until it is within 3 days of today) with the agency key in sandbox.json.
 */
const DEMO_SIM_DAYS_BEHIND = 60;
const manifestPath = process.env.SANDBOX_MANIFEST ?? 'sandbox.json';

const sim = await startSimulator({
  port: Number(process.env.SIMULATOR_PORT ?? 8090),
  speed: 1440,
  startDay: addDays(utcDay(new Date()), -DEMO_SIM_DAYS_BEHIND),
  capAtNow: true,
});
// A webhook inspector and sample media on this machine (simulator/local-tools.ts).
const tools = await startLocalTools({ port: Number(process.env.LOCAL_TOOLS_PORT ?? 8091) });
const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as {
  keys: { agency: string };
  workspaces: { agency: string };
  people?: Record<string, { email: string }>;
};
// The environment's configuration, pointed at this simulator and syncing every minute unless set. A
// sandbox on one machine delivers webhooks to, and fetches studio media from, the loopback address
// (ALLOW_LOOPBACK_FETCH; private ranges stay refused): the tools above live there.
const service = await serve(() =>
  loadConfig({
    SIMULATOR_URL: sim.url,
    SYNC_INTERVAL_MINUTES: '1',
    SYNC_ON_DEMAND_COOLDOWN_SECONDS: '10',
    ALLOW_LOOPBACK_FETCH: 'true',
    ...process.env,
  }),
);
const config = service.ctx.config;
// A restart resumes the clock where the last run had got to, instead of winding it back (demoStartDay).
const start = await demoStartDay(
  service.ctx.db,
  manifest.workspaces.agency,
  utcDay(service.ctx.now()),
  DEMO_SIM_DAYS_BEHIND,
);
if (start.resumed) {
  sim.advanceDays(daysBetween(sim.today(), start.day));
  console.log(`demo: the simulator's clock resumes at ${sim.today()}, where the last run had got to`);
}
const { removed } = await handOverToSimulator(
  service.ctx.db,
  manifest.workspaces.agency,
  sim.today(),
  utcDay(service.ctx.now()),
);

// serve resolves once the service listens; the consent flow goes through its HTTP API.
const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
const results = await connectThroughConsent({
  baseUrl: `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`,
  key: manifest.keys.agency,
  workspaceId: manifest.workspaces.agency,
});
const connected = results.filter((r) => r.outcome === 'connected');
for (const r of results)
  if (r.outcome !== 'connected') console.error(`demo: ${r.platform} not connected: ${r.outcome.error}`);
console.log(
  `platform simulator on ${sim.url} (today ${sim.today()}, a day a minute); ${connected.length} platform(s) of ` +
    `sandbox workspace ${manifest.workspaces.agency} connected through the consent flow ` +
    `(${connected.map((r) => r.platform).join(', ') || 'none'}; ${removed} seeded days after ${sim.today()} ` +
    `removed), first sync queued, then synced every minute`,
);
console.log(
  `webhooks: register one with url ${tools.url}/webhooks/demo and watch deliveries at ${tools.url}/webhooks; ` +
    `studio media to score: ${tools.url}/media/`,
);
console.log(
  `dashboard: http://${host.includes(':') ? `[${host}]` : host}:${config.port}/app/ (sign in as ` +
    `${manifest.people?.['pro-owner']?.email ?? 'a person of the manifest'}; every person and password: ` +
    `"people" in ${manifestPath})`,
);

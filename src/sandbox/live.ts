import fs from 'node:fs';
import { addDays, utcDay } from '../core/days.ts';
import { loadConfig } from '../infra/config.ts';
import { sealTokens } from '../platforms/vault.ts';
import { createService } from '../service.ts';
import { startSimulator } from '../simulator/server.ts';

/**
 * `npm run demo`, second half: a live sandbox. Starts the platform simulator in this process (a
 * simulated day per minute, its clock starting DEMO_SIM_DAYS_BEHIND days ago so for an hour every minute brings
 * a day the service has not seen), connects the sandbox Agency workspace's platforms through it
 * (tokens issued as if its user had consented), syncs every minute, then runs the service. Watch
 * GET /v1/platforms (last_sync, next_sync_at) and GET /v1/score (real-time) with the agency key in
 * sandbox.json: each minute a sync adds the simulator's next day and the score moves.
 */
const DEMO_SIM_DAYS_BEHIND = 60;
const manifestPath = process.env.SANDBOX_MANIFEST ?? 'sandbox.json';

const sim = await startSimulator({
  port: Number(process.env.SIMULATOR_PORT ?? 8090),
  speed: 1440,
  startDay: addDays(utcDay(new Date()), -DEMO_SIM_DAYS_BEHIND),
});
process.env.SIMULATOR_URL ??= sim.url;
process.env.SYNC_INTERVAL_MINUTES ??= '1';
process.env.SYNC_ON_DEMAND_COOLDOWN_SECONDS ??= '10';

const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as { workspaces: { agency: string } };
const workspaceId = manifest.workspaces.agency;
const service = await createService({ ...loadConfig(), runWorkers: false });
try {
  const live = await service.ctx.db
    .selectFrom('platform_connections')
    .select(['id', 'platform', 'handle'])
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'connected')
    .execute();
  for (const c of live) {
    const res = await fetch(`${sim.url}/_sim/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ platform: c.platform, handle: c.handle.replace(/^@/, '') }),
    });
    const t = (await res.json()) as {
      access_token: string;
      refresh_token: string;
      expires_in: number;
      scope: string;
    };
    await service.ctx.db
      .updateTable('platform_connections')
      .set({
        ...sealTokens(service.ctx.keyRing, {
          accessToken: t.access_token,
          refreshToken: t.refresh_token,
          expiresAt: new Date(Date.now() + t.expires_in * 1000),
          scopes: t.scope,
        }),
        // Due now, and a first sync over the simulator's history.
        next_sync_at: null,
        last_sync_at: null,
        last_error_class: null,
        last_error_at: null,
        consecutive_failures: 0,
      })
      .where('id', '=', c.id)
      .execute();
  }
  console.log(
    `platform simulator on ${sim.url} (today ${sim.today()}, a day a minute); ` +
      `${live.length} platform(s) of sandbox workspace ${workspaceId} connected through it, synced every minute`,
  );
} finally {
  await service.stop();
}
const base = (process.env.PUBLIC_URL ?? `http://localhost:${process.env.PORT ?? 8080}`).replace(/\/+$/, '');
console.log(`dashboard: ${base}/app/ (sign in with a key from ${manifestPath})`);
await import('../main.ts');

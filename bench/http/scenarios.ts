import path from 'node:path';
import type { Backend, ScenarioName } from '../options.ts';
import type { HttpResult } from '../report.ts';
import { bearer } from '../seed/keys.ts';
import type { ExportData, ScoreData, TacsiFeedData } from '../seed/http-data.ts';
import { drive, type RotatedRequest } from './load.ts';
import type { ServerProcess } from './server-process.ts';

export interface HttpScenario {
  name: ScenarioName;
  label: string;
  scale: string;
  rotation: RotatedRequest[];
  /** 0 = no target, reported only. */
  minRatio: number;
  maxP99Ms?: number;
}

/** The HTTP scenarios with their targets for this backend (docs/performance.md). */
export function httpScenarios(
  backend: Backend,
  data: { score: ScoreData; exportAgencies: number; exports: ExportData; tacsi: TacsiFeedData },
): HttpScenario[] {
  const { score, tacsi } = data;
  const tacsiRotation = (path: string) => tacsi.keys.map((key) => ({ path, authorization: bearer(key) }));
  return [
    {
      // No target: what the service's own per-request work (hooks, request id, metrics) leaves of the
      // limit on a route with no authentication and no database, the ceiling of every other ratio.
      name: 'healthz',
      label: 'GET /healthz (baseline)',
      scale: 'no auth, no database',
      rotation: [{ path: '/healthz', authorization: '' }],
      minRatio: 0,
    },
    {
      name: 'score',
      label: 'GET /v1/score',
      scale: `${score.pairs.length} workspaces, ${score.agencyKeys.length} keys`,
      rotation: score.pairs.map(({ key, workspaceId }) => ({
        path: `/v1/score?workspace_id=${workspaceId}`,
        authorization: bearer(key),
      })),
      ...(backend === 'postgres' ? { minRatio: 0.5, maxP99Ms: 25 } : { minRatio: 0.25 }),
    },
    {
      name: 'tacsi-weekly',
      label: 'GET /v1/tacsi/weekly',
      scale: `${tacsi.weeks} weeks, ${tacsi.keys.length} keys`,
      rotation: tacsiRotation(`/v1/tacsi/weekly?sector=${tacsi.sector}`),
      minRatio: 0.8,
    },
    {
      name: 'tacsi-history',
      label: 'GET /v1/tacsi/history',
      scale: `260-row page of ${tacsi.weeks}`,
      rotation: tacsiRotation(`/v1/tacsi/history?sector=${tacsi.sector}`),
      minRatio: 0.8,
    },
    {
      name: 'export-scores',
      label: 'GET /v1/export/scores?limit=1000',
      scale: `${data.exports.scoreLogRows} score_log rows, ${data.exportAgencies} agencies, ${data.exports.keys.length} keys`,
      rotation: data.exports.keys.map((key) => ({
        path: '/v1/export/scores?limit=1000',
        authorization: bearer(key),
      })),
      ...(backend === 'postgres' ? { minRatio: 0.2, maxP99Ms: 500 } : { minRatio: 0.2 }),
    },
  ];
}

function problemText(body: string): string {
  try {
    const problem = JSON.parse(body) as { title?: string; detail?: string; message?: string };
    return [problem.title, problem.detail ?? problem.message].filter(Boolean).join(': ');
  } catch {
    return body.slice(0, 200);
  }
}

/**
 * One scenario: probe it once (a 404 means the domain is not there yet: skipped, not a crash), then
 * warm up and measure the service, then the bare limit server serving the probe's exact bytes, each
 * with the same connections, duration and request rotation.
 */
export async function runHttpScenario(
  server: ServerProcess,
  scenario: HttpScenario,
  options: { connections: number; seconds: number; warmupSeconds: number; cpuProfileDir: string | null },
): Promise<HttpResult> {
  const base: HttpResult = {
    kind: 'http',
    name: scenario.name,
    label: scenario.label,
    scale: scenario.scale,
    status: 'ok',
    target: { minRatio: scenario.minRatio, ...(scenario.maxP99Ms ? { maxP99Ms: scenario.maxP99Ms } : {}) },
    misses: [],
  };
  const first = scenario.rotation[0];
  if (!first) return { ...base, status: 'skipped', reason: 'no requests to send (no data)' };
  const probe = await fetch(server.url + first.path, {
    headers: first.authorization ? { authorization: first.authorization } : {},
  });
  const body = await probe.text();
  if (probe.status === 404) return { ...base, status: 'skipped', reason: `404 ${problemText(body)}` };
  if (probe.status !== 200)
    return { ...base, status: 'failed', reason: `probe answered ${probe.status} ${problemText(body)}` };

  const limitUrl = await server.startLimit(body, probe.headers.get('content-type') ?? 'application/json');
  try {
    const run = { connections: options.connections };
    const warmPass = { ...run, seconds: 60, amount: Math.max(scenario.rotation.length, run.connections) };
    // Warm-up: one pass over the whole rotation (every key and workspace seen once, as by a service
    // that has been up a while: 10,000 score pairs take longer than a timed 2 s), then the timed part.
    await drive(server.url, scenario.rotation, warmPass);
    await drive(server.url, scenario.rotation, { ...run, seconds: options.warmupSeconds });
    await server.resetRss();
    if (options.cpuProfileDir) await server.profileStart();
    const serviceCpu0 = await server.cpuUs();
    const service = await drive(server.url, scenario.rotation, { ...run, seconds: options.seconds });
    const serviceCpu = (await server.cpuUs()) - serviceCpu0;
    if (options.cpuProfileDir)
      await server.profileStop(path.join(options.cpuProfileDir, `${scenario.name}.cpuprofile`));
    const rss = await server.rss();
    await drive(limitUrl, scenario.rotation, warmPass);
    await drive(limitUrl, scenario.rotation, { ...run, seconds: options.warmupSeconds });
    const limitCpu0 = await server.cpuUs();
    const limit = await drive(limitUrl, scenario.rotation, { ...run, seconds: options.seconds });
    const limitCpu = (await server.cpuUs()) - limitCpu0;
    const perRequest = (cpu: number, total: number) => (total > 0 ? Math.round(cpu / total) : 0);
    const cpuPerRequestUs = {
      service: perRequest(serviceCpu, service.total),
      limit: perRequest(limitCpu, limit.total),
      ratio: serviceCpu > 0 && limit.total > 0 ? limitCpu / limit.total / (serviceCpu / service.total) : 0,
    };
    const ratio = limit.rps > 0 ? service.rps / limit.rps : 0;
    const misses: string[] = [];
    if (ratio < scenario.minRatio)
      misses.push(`ratio ${ratio.toFixed(ratio < 0.1 ? 3 : 2)} < ${scenario.minRatio}`);
    if (scenario.maxP99Ms !== undefined && !(service.p99 < scenario.maxP99Ms))
      misses.push(`p99 ${service.p99} ms >= ${scenario.maxP99Ms} ms`);
    if (service.errors > 0) misses.push(`${service.errors} errors ${JSON.stringify(service.statusCodes)}`);
    return {
      ...base,
      service,
      limit,
      ratio,
      cpuPerRequestUs,
      bodyBytes: Buffer.byteLength(body),
      sample: body.slice(0, 300),
      peakRssMb: rss.peakMb,
      memoryAtPeak: rss.atPeak,
      misses,
    };
  } finally {
    await server.closeLimit(limitUrl);
  }
}

import fs from 'node:fs';
import path from 'node:path';
import type { LoadResult } from './http/load.ts';
import type { RssSnapshot } from './rss.ts';

type Status = 'ok' | 'skipped' | 'failed';

/** An HTTP scenario measured side by side with its bare-Fastify limit. */
export interface HttpResult {
  kind: 'http';
  name: string;
  label: string;
  scale: string;
  status: Status;
  reason?: string;
  service?: LoadResult;
  limit?: LoadResult;
  ratio?: number;
  /**
   * CPU time of the server process per request (user + system, microseconds) during the measured run
   * of the service and of its limit, and limit / service: what the ratio would be if the process had
   * the CPU to itself. Less sensitive to other load on the machine than req/s.
   */
  cpuPerRequestUs?: { service: number; limit: number; ratio: number };
  bodyBytes?: number;
  /** The start of the probe's response body, to see what was measured. */
  sample?: string;
  /** Highest RSS of the service process sampled during the measured run, MB. */
  peakRssMb?: number;
  memoryAtPeak?: RssSnapshot['atPeak'];
  target: { minRatio: number; maxP99Ms?: number };
  /** Every target missed, in words; empty when all are met. */
  misses: string[];
}

/** A batch scenario (audits, publication, cold start, memory): one measured figure against its limit. */
export interface ScenarioResult {
  kind: 'batch';
  name: string;
  label: string;
  scale: string;
  status: Status;
  reason?: string;
  measured?: string;
  limit?: string;
  ratio?: number;
  target?: string;
  misses: string[];
  details?: Record<string, unknown>;
}

export type Result = HttpResult | ScenarioResult;

export interface Report {
  startedAt: string;
  finishedAt: string;
  totalSeconds: number;
  backend: string;
  database: string;
  machine: { cpus: number; cpuModel: string; memoryGb: number; node: string; loadAverage: number[] };
  settings: Record<string, unknown>;
  seeding: Record<string, number>;
  results: Result[];
  /** Names of the scenarios that missed a target (or failed), and of those skipped. */
  missed: string[];
  skipped: string[];
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.map(line)].join('\n');
}

const verdict = (r: Result) =>
  r.status !== 'ok' ? `${r.status}: ${r.reason}` : r.misses.length ? `MISS: ${r.misses.join('; ')}` : 'ok';
const fixed = (x: number | undefined) =>
  x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(Math.abs(x) < 0.1 ? 3 : 2);

/** The two tables printed at the end of a run: HTTP scenarios, then the rest. */
export function formatReport(report: Report): string {
  const http = report.results.filter((r): r is HttpResult => r.kind === 'http');
  const batch = report.results.filter((r): r is ScenarioResult => r.kind === 'batch');
  const httpTable = table(
    [
      'scenario',
      'scale',
      'req/s',
      'p50 ms',
      'p99 ms',
      'errors',
      'RSS MB',
      'limit req/s',
      'limit p99',
      'ratio',
      'target',
      'result',
    ],
    http.map((r) => [
      r.label,
      r.scale,
      String(r.service?.rps ?? '-'),
      String(r.service?.p50 ?? '-'),
      String(r.service?.p99 ?? '-'),
      String(r.service?.errors ?? '-'),
      String(r.peakRssMb ?? '-'),
      String(r.limit?.rps ?? '-'),
      String(r.limit?.p99 ?? '-'),
      fixed(r.ratio),
      r.target.minRatio
        ? `>= ${r.target.minRatio}${r.target.maxP99Ms ? `, p99 < ${r.target.maxP99Ms} ms` : ''}`
        : 'report',
      verdict(r),
    ]),
  );
  const batchTable = table(
    ['scenario', 'scale', 'measured', 'limit', 'ratio', 'target', 'result'],
    batch.map((r) => [
      r.label,
      r.scale,
      r.measured ?? '-',
      r.limit ?? '-',
      fixed(r.ratio),
      r.target ?? '-',
      verdict(r),
    ]),
  );
  const header =
    `brand-health bench: ${report.backend} (${report.database})\n` +
    `${report.machine.cpus} CPU ${report.machine.cpuModel}, Node ${report.machine.node}, load ${report.machine.loadAverage.map((l) => l.toFixed(1)).join(' ')}; ` +
    `${report.totalSeconds.toFixed(0)} s in all\n` +
    `settings: ${JSON.stringify(report.settings)}\n` +
    `seeding (s): ${JSON.stringify(report.seeding)}`;
  const summary = [
    report.missed.length ? `MISSED: ${report.missed.join(', ')}` : 'every measured target met',
    ...(report.skipped.length ? [`SKIPPED: ${report.skipped.join(', ')}`] : []),
  ].join('\n');
  return `${header}\n\n${httpTable}\n\n${batchTable}\n\n${summary}\n`;
}

export function writeReport(file: string, report: Report): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}

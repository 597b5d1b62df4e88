// Summarises a V8 CPU profile (node --cpu-prof) into where the time went: by package or source
// folder, by function (self time), and by our own functions (inclusive time).
// Usage: node bench/profile-summary.ts <file.cpuprofile> [top=25]
import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Which package or source folder a script belongs to. */
export function areaOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const own = /\/(src|bench|test)\/(?:([^/]+)\/)?/.exec(url);
  if (own) return own[2] && !own[2].includes('.') ? `${own[1]}/${own[2]}` : own[1]!;
  return url;
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.replace(/^.*\/(node_modules\/|src\/|bench\/)/, '$1');
  return `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
}

export interface ProfileSummary {
  totalMs: number;
  byArea: Array<[string, number]>;
  selfByFunction: Array<[string, number]>;
  inclusiveOwn: Array<[string, number]>;
}

export function summarise(profile: CpuProfile, top = 25): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const area = new Map<string, number>();
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const node = byId.get(id);
    if (!node) return;
    total += ms;
    const a = areaOf(node.callFrame.url, node.callFrame.functionName);
    area.set(a, (area.get(a) ?? 0) + ms);
    self.set(label(node), (self.get(label(node)) ?? 0) + ms);
    // Inclusive time of our own code: every distinct src/ function on the sample's stack.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur)!;
      if (!/\/src\//.test(frame.callFrame.url)) continue;
      const key = label(frame);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + ms);
    }
  });
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top);
  return {
    totalMs: total,
    byArea: sorted(area),
    selfByFunction: sorted(self),
    inclusiveOwn: sorted(inclusive),
  };
}

function print(title: string, rows: Array<[string, number]>, total: number): void {
  console.log(`\n${title}`);
  for (const [name, ms] of rows) {
    console.log(`${((100 * ms) / total).toFixed(1).padStart(5)}%  ${ms.toFixed(0).padStart(7)} ms  ${name}`);
  }
}

if (import.meta.main) {
  const [file, topArg] = process.argv.slice(2);
  if (!file) {
    console.error('usage: node bench/profile-summary.ts <file.cpuprofile> [top]');
    process.exit(2);
  }
  const summary = summarise(JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile, Number(topArg ?? 25));
  console.log(`${file}: ${summary.totalMs.toFixed(0)} ms sampled`);
  print('by package / source folder (self time)', summary.byArea, summary.totalMs);
  print('by function (self time)', summary.selfByFunction, summary.totalMs);
  print('our functions (inclusive time)', summary.inclusiveOwn, summary.totalMs);
}

import { measureText } from '../src/studio/text-analysis.ts';
import { TEXT_CPU_BUDGET_MS } from '../src/studio/text-pool.ts';
import type { ScenarioResult } from './report.ts';
import { round } from './stats.ts';

/**
 * The studio's text analysis on the slowest 10,000-character texts known (docs/studio.md, "Bounded
 * analysis"): CPU time of the analysis itself on this thread, best of three per text, against the
 * analysis thread's CPU budget. Target: the slowest text within half the budget, so an ordinary
 * draft on a busy thread is never stopped.
 */
const LENGTH = 10_000;
const TEXTS: Record<string, string> = {
  '#1111…': `#${'1'.repeat(LENGTH - 1)}`,
  "''''…": "'".repeat(LENGTH),
  '????…': '?'.repeat(LENGTH),
  'a-a-…': 'a-'.repeat(LENGTH / 2),
  'aaaa.…': 'aaaa.'.repeat(LENGTH / 5),
  'a@a.…': 'a@a.'.repeat(LENGTH / 4),
  '####…': '#'.repeat(LENGTH),
  'a.a.…': 'a.'.repeat(LENGTH / 2),
  'a⏎ × 5,000': 'a\n'.repeat(LENGTH / 2),
  'e + 9,999 combining marks': `e${'\u0301'.repeat(LENGTH - 1)}`,
  prose: 'Our spring menu lands Monday: oat-milk lavender latte, two new pastries. Which one first? #coffee\n'
    .repeat(110)
    .slice(0, LENGTH),
};

function cpuMs(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}

export async function runStudioTextScenario(log: (message: string) => void): Promise<ScenarioResult> {
  await measureText('Warm the models up. Which one would you pick? #coffee');
  const perText: Record<string, number> = {};
  for (const [name, text] of Object.entries(TEXTS)) {
    let best = Infinity;
    for (let run = 0; run < 3; run++) {
      const before = cpuMs();
      await measureText(text);
      best = Math.min(best, cpuMs() - before);
    }
    perText[name] = round(best);
    log(`  studio text ${name}: ${perText[name]} ms CPU`);
  }
  const [slowest, ms] = Object.entries(perText).reduce((a, b) => (b[1] > a[1] ? b : a));
  const ratio = round(ms / TEXT_CPU_BUDGET_MS);
  return {
    kind: 'batch',
    name: 'studio-text',
    label: 'studio text analysis, slowest 10,000 characters',
    scale: `${Object.keys(TEXTS).length} texts of ${LENGTH.toLocaleString('en-US')} characters`,
    status: 'ok',
    measured: `${ms} ms CPU (${slowest})`,
    limit: `${TEXT_CPU_BUDGET_MS} ms CPU budget per text`,
    ratio,
    target: '<= 0.5 of the budget',
    misses: ratio > 0.5 ? [`slowest text ${ratio} of the budget`] : [],
    details: { cpuMsPerText: perText },
  };
}

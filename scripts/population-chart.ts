/**
 * npm run population-chart [-- --n 20000 --seed 2026]
 *
 * Scores the reference population of formula v2 (src/scoring/engine/v2/reference-population.ts)
 * and writes docs/img/population.svg: the histogram of composite scores, coloured by grade band,
 * with the cutoffs. Prints the figures as Markdown tables for docs/scoring.md, and the population
 * quantiles the grade cutoffs (COMPOSITE_GRADE_CUTOFFS_V2) are set from.
 * Hand-written SVG: no charting dependency.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  COMPOSITE_GRADE_CUTOFFS_V2,
  PILLAR_GRADE_CUTOFFS_V2,
  scoreWorkspaceV2,
} from '../src/scoring/engine/v2/index.ts';
import { referencePopulation } from '../src/scoring/engine/v2/reference-population.ts';
import { addDays } from '../src/core/days.ts';
import { PILLARS } from '../src/core/catalog.ts';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isInteger(v) && v > 0 ? v : fallback;
}

// 20,000: the 95% quantile then has a sampling sd of about 0.1 point (4,000 gave 0.2, and 0.6 off).
const N = arg('n', 20000);
const SEED = arg('seed', 2026);
const FROM = '2025-01-01';
const DAYS = 120;
const asOf = addDays(FROM, DAYS - 1);

const started = Date.now();
const rows = referencePopulation({ seed: SEED, n: N, from: FROM, days: DAYS }).map((a) =>
  scoreWorkspaceV2({ snapshots: a.snapshots, platforms: [], asOf, lookbackDays: 90 }),
);
const seconds = (Date.now() - started) / 1000;

/** Quantile, linear interpolation between order statistics (type 7). */
function quantile(xs: readonly number[], q: number): number {
  const a = [...xs].sort((x, y) => x - y);
  const h = (a.length - 1) * q;
  const lo = Math.floor(h);
  return a[lo]! + (h - lo) * ((a[Math.min(lo + 1, a.length - 1)] ?? a[lo]!) - a[lo]!);
}

const series: Record<string, number[]> = { composite: rows.map((r) => r.score) };
for (const k of PILLARS) series[k] = rows.map((r) => r.pillars[k]);
const cols = ['composite', ...PILLARS];
const f1 = (x: number) => x.toFixed(1);

const out: string[] = [];
out.push(
  `Reference population: ${N} accounts (seed ${SEED}), 90-day window, scored in ${seconds.toFixed(1)} s.`,
);
out.push('');
out.push(`| quantile | ${cols.join(' | ')} |`);
out.push(`| --- | ${cols.map(() => '---').join(' | ')} |`);
for (const q of [0.05, 0.25, 0.5, 0.75, 0.95])
  out.push(
    `| ${q === 0.5 ? '**median**' : `${q * 100}%`} | ${cols.map((c) => f1(quantile(series[c]!, q))).join(' | ')} |`,
  );
out.push('');

const GRADES = [
  ['elite', 'top 5%', 0.05],
  ['strong', 'next 20%', 0.2],
  ['moderate', 'middle 50%', 0.5],
  ['weak', 'next 20%', 0.2],
  ['critical', 'bottom 5%', 0.05],
] as const;
const c = COMPOSITE_GRADE_CUTOFFS_V2;
const band: Record<string, string> = {
  elite: `>= ${c.elite}`,
  strong: `${c.strong} - ${f1(c.elite - 0.1)}`,
  moderate: `${c.moderate} - ${f1(c.strong - 0.1)}`,
  weak: `${c.weak} - ${f1(c.moderate - 0.1)}`,
  critical: `< ${c.weak}`,
};
const share = (g: string) => rows.filter((r) => r.grade === g).length / N;
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
out.push('| grade | composite | published share | share in this population |');
out.push('| --- | --- | --- | --- |');
for (const [g, label, p] of GRADES)
  out.push(`| ${g} | ${band[g]} | ${label} (${pct(p)}) | ${pct(share(g))} |`);
out.push('');
out.push(
  `Population quantiles 95/75/25/5% of the composite: ${[0.95, 0.75, 0.25, 0.05].map((q) => f1(quantile(series.composite!, q))).join(' / ')}`,
);
out.push('');
out.push(`| pillar grade | ${PILLARS.join(' | ')} |\n| --- | ${PILLARS.map(() => '---').join(' | ')} |`);
for (const pg of ['green', 'yellow', 'red'] as const)
  out.push(
    `| ${pg} | ${PILLARS.map((k) => pct(rows.filter((r) => r.pillarGrades[k] === pg).length / N)).join(' | ')} |`,
  );
out.push(
  `\nPillar grades: green >= ${PILLAR_GRADE_CUTOFFS_V2.green}, red < ${PILLAR_GRADE_CUTOFFS_V2.yellow}.`,
);
console.log(out.join('\n'));

// --- SVG: one bar per 1-point bin of the composite, coloured by the grade band it falls in.
const W = 760;
const H = 360;
const M = { left: 56, right: 20, top: 44, bottom: 64 };
const lo = Math.floor(quantile(series.composite!, 0.001)) - 2;
const hi = Math.ceil(quantile(series.composite!, 0.999)) + 2;
const bins = new Array<number>(hi - lo).fill(0);
for (const s of series.composite!) {
  const i = Math.floor(s) - lo;
  if (i >= 0 && i < bins.length) bins[i]!++;
}
const maxBin = Math.max(...bins);
const x = (v: number) => M.left + ((v - lo) / (hi - lo)) * (W - M.left - M.right);
const y = (n: number) => H - M.bottom - (n / maxBin) * (H - M.top - M.bottom);
const COLOURS: Record<string, string> = {
  elite: '#1a7f37',
  strong: '#74b816',
  moderate: '#f2c94c',
  weak: '#f2994a',
  critical: '#d64545',
};
const gradeOf = (v: number) =>
  v >= c.elite
    ? 'elite'
    : v >= c.strong
      ? 'strong'
      : v >= c.moderate
        ? 'moderate'
        : v >= c.weak
          ? 'weak'
          : 'critical';
const svg: string[] = [];
svg.push(
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-family="system-ui, sans-serif" font-size="12">`,
);
svg.push(`<rect width="${W}" height="${H}" fill="#ffffff"/>`);
svg.push(
  `<text x="${W / 2}" y="22" text-anchor="middle" font-size="15" font-weight="600">Formula v2 composite over the reference population (${N} accounts)</text>`,
);
bins.forEach((n, i) => {
  if (!n) return;
  const v = lo + i;
  svg.push(
    `<rect x="${x(v).toFixed(1)}" y="${y(n).toFixed(1)}" width="${(x(v + 1) - x(v) - 1).toFixed(1)}" height="${(H - M.bottom - y(n)).toFixed(1)}" fill="${COLOURS[gradeOf(v)]}"/>`,
  );
});
// Axes and ticks.
svg.push(
  `<line x1="${M.left}" y1="${H - M.bottom}" x2="${W - M.right}" y2="${H - M.bottom}" stroke="#333"/>`,
  `<line x1="${M.left}" y1="${M.top}" x2="${M.left}" y2="${H - M.bottom}" stroke="#333"/>`,
);
for (let v = Math.ceil(lo / 5) * 5; v <= hi; v += 5)
  svg.push(
    `<line x1="${x(v)}" y1="${H - M.bottom}" x2="${x(v)}" y2="${H - M.bottom + 4}" stroke="#333"/>`,
    `<text x="${x(v)}" y="${H - M.bottom + 17}" text-anchor="middle">${v}</text>`,
  );
svg.push(
  `<text x="${W / 2}" y="${H - M.bottom + 34}" text-anchor="middle">composite score (1-point bins)</text>`,
);
const step = Math.max(1, Math.ceil(maxBin / 5 / 10) * 10);
for (let n = 0; n <= maxBin; n += step)
  svg.push(`<text x="${M.left - 6}" y="${y(n) + 4}" text-anchor="end">${n}</text>`);
svg.push(
  `<text transform="translate(16 ${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle">accounts</text>`,
);
// Cutoffs and the median.
for (const [g, v] of Object.entries(c))
  svg.push(
    `<line x1="${x(v)}" y1="${M.top}" x2="${x(v)}" y2="${H - M.bottom}" stroke="#555" stroke-dasharray="4 3"/>`,
    `<text x="${x(v) + 3}" y="${M.top + 10}" fill="#555">${g} ${v}</text>`,
  );
const med = quantile(series.composite!, 0.5);
svg.push(
  `<line x1="${x(med)}" y1="${M.top + 14}" x2="${x(med)}" y2="${H - M.bottom}" stroke="#000" stroke-width="1.5"/>`,
  `<text x="${x(med) + 3}" y="${M.top + 26}">median ${f1(med)}</text>`,
);
// Legend with shares.
let lx = M.left;
for (const [g, , p] of GRADES) {
  svg.push(
    `<rect x="${lx}" y="${H - 18}" width="12" height="12" fill="${COLOURS[g]}"/>`,
    `<text x="${lx + 16}" y="${H - 8}">${g} ${pct(share(g))} (published ${pct(p)})</text>`,
  );
  lx += 140;
}
svg.push('</svg>');
const file = path.join(import.meta.dirname, '..', 'docs', 'img', 'population.svg');
fs.mkdirSync(path.dirname(file), { recursive: true });
fs.writeFileSync(file, `${svg.join('\n')}\n`);
console.log(`\nwrote ${path.relative(process.cwd(), file)}`);

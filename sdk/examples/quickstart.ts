// The README's API examples, type-checked with the repository (`npm run typecheck`).
// Run against the sandbox: `npm run demo` in one terminal, then `npm run sdk:quickstart`.
import fs from 'node:fs';
import { createBrandHealthClient, ProblemError, unwrap } from '../src/index.ts';

const sandbox = JSON.parse(fs.readFileSync('sandbox.json', 'utf8'));
const bh = createBrandHealthClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.pro });

// Typed calls: paths, parameters and answers come from the OpenAPI document.
const workspace = unwrap(await bh.GET('/v1/workspace'));
console.log(`${workspace.name}: ${workspace.audits_used}/${workspace.audits_limit} audits this month`);
const score = unwrap(await bh.GET('/v1/score', { params: { query: { include_pillars: true } } }));
console.log(`Brand Credit Score ${score.score} (${score.grade})`);
// Why the score is what it is (formula v3): its drivers, largest effect first, each with a sentence.
for (const d of (score.drivers ?? []).slice(0, 3))
  console.log(`${d.points > 0 ? '+' : ''}${d.points} ${d.text}`);

// Start an audit and wait for it (425 Too Early + Retry-After are handled for you).
try {
  const audit = await bh.runAudit({ lookback_days: 30 }, { timeoutMs: 120_000 });
  console.log(
    audit.status === 'completed' ? `audit: ${audit.score}` : `audit failed: ${audit.failure_reason}`,
  );
} catch (e) {
  // Every API error is a typed RFC 9457 problem.
  if (!(e instanceof ProblemError)) throw e;
  console.log(`${e.status} ${e.title}: ${e.detail} (request ${e.requestId})`, e.extensions);
}

// Pagination as async iterators.
for await (const past of bh.audits({ status: 'completed' })) console.log(past.completed_at, past.score);
const agency = createBrandHealthClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.agency });
let campaigns = 0;
for await (const _ of agency.campaigns()) campaigns++;
let rows = 0;
for await (const _ of agency.scoreLog({ since: new Date(Date.now() - 7 * 86_400_000) })) rows++;
console.log(`agency: ${campaigns} campaigns, ${rows} score-log rows in the last 7 days`);

const research = createBrandHealthClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.tacsiFull });
const { sectors } = unwrap(await research.GET('/v1/tacsi/sectors'));
console.log(`licensed: ${sectors.map((s) => `${s.slug} (${s.feeds.join(', ')})`).join('; ')}`);
for await (const week of research.tacsiHistory({ sector: 'fashion-apparel', from: '2026-10-01' })) {
  console.log(
    `TACSI fashion-apparel ${week.periodEnd}: ${week.indexValue} ±${week.marginOfError.indexValue}`,
  );
}

import { PILLARS, unwrap } from '../api.ts';
import { Chart } from '../chart.tsx';
import type { ViewProps } from '../main.tsx';
import {
  Drivers,
  Loaded,
  Recommendations,
  Section,
  TableHead,
  cap,
  useAsync,
  when,
  type Async,
} from '../ui.tsx';
import type { components } from '../../../sdk/src/schema.d.ts';

type Score = components['schemas']['Score'];
type Benchmark = Extract<components['schemas']['AuditResult'], { status: 'completed' }>['industry_benchmark'];

function benchmarkOf(audit: Async<{ industry_benchmark: Benchmark } | null>): Benchmark | null {
  return audit.state === 'ready' && audit.value ? audit.value.industry_benchmark : null;
}

/**
 * What the headline means, from the API's own `grading` (the engine's cutoffs, never a copy here):
 * what 50 is, the grade bands, the interval, the window the score stands on, the hysteresis rule and
 * the industry benchmark with its margin.
 */
function ScoreLegend({ score, benchmark }: { score: Score; benchmark: Benchmark | null }) {
  const g = score.grading;
  if (!g) {
    return (
      <p data-testid="score-legend">
        This score was calculated with formula {score.formula_version}, which has no interval or grade legend.
        The next audit scores with the current formula.
      </p>
    );
  }
  const bands = g.grades.map((b, i) => {
    const upper = i > 0 ? g.grades[i - 1]!.min : null;
    const range =
      b.min === null ? `below ${upper}` : upper === null ? `${b.min} and above` : `${b.min} up to ${upper}`;
    return { ...b, range };
  });
  // The hysteresis example: the cutoff between the two lowest bands.
  const low = bands.at(-2);
  const cut = low?.min ?? g.median;
  const below = Math.round((cut - 0.4) * 10) / 10;
  const under = Math.round((cut - 0.9) * 10) / 10;
  const avg = benchmark?.industry_average ?? null;
  const moe = benchmark?.basis?.margin_of_error ?? null;
  return (
    <div data-testid="score-legend">
      <p>
        <strong>{g.median}</strong> is the median account: half of the reference population of brand accounts
        scores above it, half below. Each grade is a share of that population:
      </p>
      {score.baseline && (
        <p data-testid="legend-baseline">
          <strong>Benchmarks:</strong> version {score.baseline.version}
          {score.baseline.dated ? ` (${score.baseline.dated})` : ''},{' '}
          {score.baseline.industry === 'all'
            ? 'all industries'
            : `the ${score.baseline.industry} industry where its figures are published, all industries elsewhere`}
          ;{' '}
          {score.baseline.reference === 'modelled'
            ? 'the reference population is modelled from published benchmarks, not measured accounts.'
            : 'the reference population is measured accounts.'}
        </p>
      )}
      <table data-testid="grade-bands">
        <TableHead cols={['Grade', 'Score', 'Share of accounts']} />
        <tbody>
          {bands.map((b) => (
            <tr key={b.grade} aria-current={b.grade === score.grade ? 'true' : undefined}>
              <th scope="row">
                <span class={`grade grade-${b.grade}`}>{b.grade}</span>
              </th>
              <td>{b.range}</td>
              <td>{Math.round(b.population_share * 100)}%</td>
            </tr>
          ))}
        </tbody>
      </table>
      {score.interval && (
        <p data-testid="legend-interval">
          <strong>Interval:</strong> with 90% confidence the score lies between{' '}
          {score.interval.low.toFixed(1)} and {score.interval.high.toFixed(1)}. A change smaller than that is
          within the data's day-to-day noise.
          {score.grade_range && score.grade_range.low !== score.grade_range.high
            ? ` The interval spans more than one grade: the score could be anywhere from ${score.grade_range.low} to ${score.grade_range.high}.`
            : ''}
        </p>
      )}
      {score.lookback_days && (
        <p data-testid="legend-lookback">
          <strong>Window:</strong> the headline stands on the {score.lookback_days} days of data up to{' '}
          {score.latest_data_day ?? 'the latest data'},{' '}
          {score.source === 'audit'
            ? 'the look-back of the latest audit. An audit over a different look-back moves the headline.'
            : 'the default window of a live score.'}
        </p>
      )}
      <p data-testid="legend-hysteresis">
        <strong>Why a higher score can carry a lower grade:</strong> a grade changes only when the score
        passes a cutoff by {g.hysteresis} points, so it does not flicker on noise. A brand at {below} that has
        been {bands.at(-1)?.grade} still reads {bands.at(-1)?.grade}, while one at {under} that was{' '}
        {low?.grade} still reads {low?.grade}, until their scores move {g.hysteresis} points past {cut}.
      </p>
      {benchmark && (
        <p data-testid="legend-benchmark">
          <strong>Industry benchmark:</strong>{' '}
          {avg === null
            ? (benchmark.basis?.reason ?? 'no industry average is published for the sector.')
            : `the sector's published average is ${avg}${moe !== null ? ` ± ${moe} (95% margin)` : ''}${
                benchmark.basis?.period_end ? `, week ending ${benchmark.basis.period_end}` : ''
              }. ${
                moe !== null && Math.abs(score.score - avg) <= moe
                  ? 'Your score is within that margin of it: no clear difference.'
                  : score.score > avg
                    ? 'Your score is above it by more than the margin.'
                    : 'Your score is below it by more than the margin.'
              }`}
        </p>
      )}
    </div>
  );
}

export function pillarBars(pillars: Record<string, number>) {
  return {
    grid: { left: 90, right: 24, top: 10, bottom: 30 },
    xAxis: { type: 'value', min: 0, max: 100 },
    yAxis: { type: 'category', data: PILLARS.map(cap), inverse: true },
    tooltip: { trigger: 'axis' },
    series: [
      {
        name: 'Pillar score',
        type: 'bar',
        data: PILLARS.map((p) => pillars[p] ?? 0),
        label: { show: true, position: 'right', color: '#1f2937' },
      },
    ],
  };
}

export function WorkspaceView({ session, workspaceId }: ViewProps) {
  const { client } = session;
  const q = workspaceId ? { workspace_id: workspaceId } : {};
  const [score] = useAsync(
    async (signal) => {
      const [current, history] = await Promise.all([
        client.GET('/v1/score', { params: { query: { ...q, include_pillars: true } }, signal }).then(unwrap),
        client
          .GET('/v1/score/history', { params: { query: { ...q, granularity: 'weekly' } }, signal })
          .then(unwrap),
      ]);
      return { current, delta: history.delta };
    },
    [workspaceId],
  );
  const [platforms] = useAsync(
    (signal) => client.GET('/v1/platforms', { params: { query: q }, signal }).then(unwrap),
    [workspaceId],
  );
  // The latest completed audit's recommendations (a failed or running audit has none).
  const [audit] = useAsync(
    async (signal) => {
      const latest = unwrap(
        await client.GET('/v1/audits', {
          params: { query: { ...q, status: 'completed', limit: 1, offset: 0 } },
          signal,
        }),
      ).audits[0];
      if (!latest) return null;
      const result = unwrap(
        await client.GET('/v1/audit/{audit_id}', { params: { path: { audit_id: latest.audit_id } }, signal }),
      );
      return result.status === 'completed' ? result : null;
    },
    [workspaceId],
  );

  return (
    <>
      <h1>Workspace</h1>
      <div class="grid">
        <Section title="Brand Credit Score">
          <Loaded data={score}>
            {({ current, delta }) => (
              <>
                <p class="big" data-testid="composite">
                  {current.score.toFixed(1)}{' '}
                  <span class={`grade grade-${current.grade}`}>{current.grade}</span>
                </p>
                {current.stale ? (
                  <p class="banner" role="status" data-testid="stale">
                    Stale: this score stands on data up to {current.latest_data_day ?? 'an unknown day'}, and
                    no newer data has arrived since. Check the connections under{' '}
                    <a href="#/platforms">Platforms</a>.
                  </p>
                ) : null}
                <p>
                  Change: <strong data-testid="delta">{delta.score}</strong> over {delta.period}
                </p>
                <p class="muted" data-testid="score-basis">
                  {current.interval
                    ? `90% interval ${current.interval.low.toFixed(1)} to ${current.interval.high.toFixed(1)} · `
                    : ''}
                  {current.lookback_days ? `the ${current.lookback_days} days of data up to ` : 'data up to '}
                  {current.latest_data_day ?? 'none yet'}
                </p>
                <p class="muted">
                  {current.tier} tier · formula {current.formula_version} · calculated{' '}
                  {when(current.calculated_at)}
                </p>
              </>
            )}
          </Loaded>
        </Section>
        <Section title="Five pillars">
          <Loaded data={score}>
            {({ current }) => (
              <Chart
                option={pillarBars(current.pillars ?? {})}
                label={`Pillar scores: ${PILLARS.map((p) => `${p} ${current.pillars?.[p] ?? 'n/a'}`).join(', ')}`}
                height={220}
                testId="pillars-chart"
              />
            )}
          </Loaded>
        </Section>
      </div>
      <Section title="What moves your score">
        <Loaded data={score}>
          {({ current }) => (
            <Drivers drivers={current.drivers} formula={current.formula_version} testId="score-drivers" />
          )}
        </Loaded>
      </Section>
      <Section title="How to read this score">
        <Loaded data={score}>
          {({ current }) => <ScoreLegend score={current} benchmark={benchmarkOf(audit)} />}
        </Loaded>
      </Section>
      <Section title="Data freshness">
        <Loaded data={platforms}>
          {(p) =>
            p.platforms.length === 0 ? (
              <p>No platform is connected yet. Connect one under Platforms.</p>
            ) : (
              <table>
                <TableHead cols={['Platform', 'Status', 'Last sync', 'Next sync']} />
                <tbody>
                  {p.platforms.map((x) => (
                    <tr key={x.name}>
                      <th scope="row">{cap(x.name)}</th>
                      <td>{x.status}</td>
                      <td>{when(x.last_sync)}</td>
                      <td>{when(x.next_sync_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          }
        </Loaded>
      </Section>
      <Section title="Latest recommendations">
        <Loaded data={audit}>
          {(a) =>
            !a ? (
              <p>
                Run an audit (under <a href="#/audits">Audits</a>) to get ranked recommendations.
              </p>
            ) : (
              <>
                <p class="muted">
                  From the audit of{' '}
                  <a href={`#/audits/${encodeURIComponent(a.audit_id)}`}>{when(a.completed_at)}</a>.
                </p>
                <Recommendations items={a.recommendations} testId="recommendations" />
              </>
            )
          }
        </Loaded>
      </Section>
    </>
  );
}

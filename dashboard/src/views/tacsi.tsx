import { useState } from 'preact/hooks';
import { PILLARS, ProblemError, unwrap, type Client } from '../api.ts';
import type { Ok } from '../../../sdk/src/client.ts';
import { COLORS, Chart, bandSeries } from '../chart.tsx';
import { Loaded, Section, cap, useAsync } from '../ui.tsx';

type History = Ok<'/v1/tacsi/history', 'get'>;
const SECTORS_SLOT = 'bh.tacsi.sectors';

/** A feed the key is not licensed for answers the uniform 403: shown as absent, never explained. */
async function maybe<T>(p: Promise<T>): Promise<T | 'denied' | 'unpublished'> {
  try {
    return await p;
  } catch (e) {
    if (e instanceof ProblemError && e.status === 403) return 'denied';
    if (e instanceof ProblemError && e.status === 404) return 'unpublished';
    throw e;
  }
}

function axisOption(extra: object) {
  return {
    tooltip: { trigger: 'axis' },
    xAxis: { type: 'time' },
    yAxis: { type: 'value', scale: true },
    ...extra,
  };
}

export function TacsiView({ client }: { client: Client }) {
  const [remembered, setRemembered] = useState<string[]>(() =>
    JSON.parse(sessionStorage.getItem(SECTORS_SLOT) ?? '[]'),
  );
  const [input, setInput] = useState(remembered[0] ?? '');
  const [sector, setSector] = useState(remembered[0] ?? '');
  const [method] = useAsync((signal) => client.GET('/v1/tacsi/methodology', { signal }).then(unwrap), []);

  return (
    <>
      <h1>TACSI sector index</h1>
      <form
        class="controls card"
        onSubmit={(e) => {
          e.preventDefault();
          setSector(input.trim().toLowerCase());
        }}
      >
        <label>
          Sector (as in your licence, e.g. fashion-apparel)
          <input
            required
            pattern="[a-z0-9\-]+"
            value={input}
            onInput={(e) => setInput(e.currentTarget.value)}
            list="tacsi-sectors"
          />
        </label>
        <datalist id="tacsi-sectors">
          {remembered.map((s) => (
            <option value={s} key={s} />
          ))}
        </datalist>
        <button type="submit">Show</button>
      </form>
      {sector && (
        <SectorView
          key={sector}
          client={client}
          sector={sector}
          onLicensed={() => {
            if (!remembered.includes(sector)) {
              const next = [sector, ...remembered].slice(0, 20);
              sessionStorage.setItem(SECTORS_SLOT, JSON.stringify(next));
              setRemembered(next);
            }
          }}
        />
      )}
      <Section title="Methodology">
        <Loaded data={method}>
          {(m) => (
            <div data-testid="methodology">
              <p>
                Current methodology <strong>{m.current}</strong>; periods ending on or after{' '}
                {m.cutOver.periodsEndingOnOrAfter} are published under {m.cutOver.version}.
              </p>
              <ul>
                {m.methodologies.map((x) => (
                  <li key={x.version}>
                    <strong>{x.version}</strong>: {x.mechanism} noise, {x.accounting} accounting, cohorts of
                    at least {x.minCohort} brands
                    {'dailyMinCohort' in x ? ` (${x.dailyMinCohort} for daily cells)` : ''}
                    {'ci95HalfWidth' in x ? `, 95% margin ±${x.ci95HalfWidth}` : ''}
                    {'margins95' in x
                      ? `, 95% margins ±${Math.min(...x.margins95.map((g) => g.indexValue))}–${Math.max(...x.margins95.map((g) => g.indexValue))} index points by cohort band and cadence`
                      : ''}
                    .
                  </li>
                ))}
              </ul>
              <p class="muted">
                The index is built from privacy-protected aggregates only: no brand's own score can be read
                from it. Forward signal: {m.forwardSignal.method}, horizon {m.forwardSignal.horizon}, after{' '}
                {m.forwardSignal.minArchiveWeeks} published weeks.
              </p>
            </div>
          )}
        </Loaded>
      </Section>
    </>
  );
}

function SectorView({
  client,
  sector,
  onLicensed,
}: {
  client: Client;
  sector: string;
  onLicensed: () => void;
}) {
  const [feeds] = useAsync(
    async (signal) => {
      const q = { sector };
      const [weekly, history, daily, ...pillars] = await Promise.all([
        maybe(client.GET('/v1/tacsi/weekly', { params: { query: q }, signal }).then(unwrap)),
        maybe(client.GET('/v1/tacsi/history', { params: { query: q }, signal }).then(unwrap)),
        maybe(client.GET('/v1/tacsi/daily', { params: { query: q }, signal }).then(unwrap)),
        ...PILLARS.map((pillar) =>
          maybe(
            client.GET('/v1/tacsi/pillars', { params: { query: { sector, pillar } }, signal }).then(unwrap),
          ),
        ),
      ]);
      const any = [weekly, history, daily, ...pillars].some((f) => f !== 'denied');
      if (any) onLicensed();
      return { any, weekly, history, daily, pillars };
    },
    [sector],
  );
  return (
    <Loaded data={feeds}>
      {(f) =>
        !f.any ? (
          <div class="error" role="alert" data-testid="tacsi-denied">
            <p>
              <strong>This key is not licensed for the requested TACSI feed.</strong>
            </p>
            <p>Check the sector's spelling, or ask about adding it to your licence.</p>
          </div>
        ) : (
          <div data-testid="tacsi-sector">
            {typeof f.weekly === 'object' && (
              <Section title={`Latest week: ${sector}`}>
                <p class="big">
                  {f.weekly.indexValue.toFixed(1)}{' '}
                  <span class="muted">± {f.weekly.marginOfError.indexValue} (95%)</span>
                </p>
                <p>
                  Week ending {f.weekly.periodEnd}; change{' '}
                  {f.weekly.delta === null ? '—' : f.weekly.delta.toFixed(2)}; cohort {f.weekly.cohortBand};{' '}
                  {f.weekly.methodologyVersion}.{' '}
                  {f.weekly.forwardSignal.status === 'available' && f.weekly.forwardSignal.interval
                    ? `Next week's projection ${f.weekly.forwardSignal.projectedIndexValue} (${f.weekly.forwardSignal.interval.low}–${f.weekly.forwardSignal.interval.high}).`
                    : f.weekly.forwardSignal.note}
                </p>
              </Section>
            )}
            {typeof f.history === 'object' && (
              <Section title="Index over time">
                <Chart
                  height={320}
                  testId="tacsi-index"
                  label={`TACSI ${sector}: ${f.history.rows.length} weekly values with their 95% margin of error`}
                  option={axisOption({
                    grid: { left: 40, right: 16, top: 20, bottom: 40 },
                    series: bandSeries(
                      'Index',
                      [...f.history.rows].reverse().map((r) => ({
                        x: r.periodEnd,
                        value: r.indexValue,
                        margin: r.marginOfError.indexValue,
                      })),
                      COLORS[0]!,
                    ),
                  })}
                />
              </Section>
            )}
            {f.pillars.some((p) => typeof p === 'object') && (
              <Section title="Pillars">
                <div class="multiples">
                  {f.pillars.map((p, i) =>
                    typeof p === 'object' ? (
                      <div key={p.pillar}>
                        <h3>{cap(p.pillar)}</h3>
                        <Chart
                          height={160}
                          label={`${p.pillar}: ${p.series.length} weekly values with their 95% margin`}
                          option={axisOption({
                            grid: { left: 36, right: 8, top: 8, bottom: 24 },
                            series: bandSeries(
                              cap(p.pillar),
                              [...p.series]
                                .reverse()
                                .map((r) => ({ x: r.periodEnd, value: r.value, margin: r.marginOfError })),
                              COLORS[(i + 1) % COLORS.length]!,
                            ),
                          })}
                        />
                      </div>
                    ) : null,
                  )}
                </div>
              </Section>
            )}
            {typeof f.daily === 'object' && (
              <Section title="Daily index (last 30 days)">
                <Chart
                  height={240}
                  testId="tacsi-daily"
                  label={`Daily TACSI ${sector}: ${f.daily.rows.length} values`}
                  option={axisOption({
                    grid: { left: 40, right: 16, top: 20, bottom: 40 },
                    series: bandSeries(
                      'Daily index',
                      [...f.daily.rows].reverse().map((r) => ({
                        x: r.periodEnd,
                        value: r.indexValue,
                        margin: r.marginOfError.indexValue,
                      })),
                      COLORS[2]!,
                    ),
                  })}
                />
              </Section>
            )}
            {typeof f.history === 'object' && <Archive client={client} sector={sector} />}
          </div>
        )
      }
    </Loaded>
  );
}

/** The weekly archive a page at a time, following the API's `before` cursor. */
function Archive({ client, sector }: { client: Client; sector: string }) {
  const [cursors, setCursors] = useState<string[]>([]);
  const before = cursors.at(-1);
  const [page] = useAsync(
    async (signal): Promise<History> => {
      const query = { sector, ...(before ? { before } : {}) };
      return unwrap(await client.GET('/v1/tacsi/history', { params: { query }, signal }));
    },
    [sector, before],
  );
  const [size, setSize] = useState(26);
  const [offset, setOffset] = useState(0);
  return (
    <Section title="Archive">
      <Loaded data={page}>
        {(p) => {
          const rows = p.rows.slice(offset, offset + size);
          const nextInPage = offset + size < p.rows.length;
          return (
            <>
              <div class="scroll">
                <table data-testid="tacsi-archive">
                  <thead>
                    <tr>
                      <th scope="col">Week ending</th>
                      <th scope="col">Index</th>
                      <th scope="col">±95%</th>
                      <th scope="col">Change</th>
                      <th scope="col">Cohort</th>
                      <th scope="col">Methodology</th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((r) => (
                      <tr key={r.periodEnd}>
                        <td>{r.periodEnd}</td>
                        <td>{r.indexValue.toFixed(2)}</td>
                        <td>{r.marginOfError.indexValue}</td>
                        <td>{r.delta === null ? '—' : r.delta.toFixed(2)}</td>
                        <td>{r.cohortBand}</td>
                        <td>{r.methodologyVersion}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <p class="row">
                <label>
                  Rows per page{' '}
                  <select
                    value={size}
                    onChange={(e) => {
                      setSize(Number(e.currentTarget.value));
                      setOffset(0);
                    }}
                  >
                    {[13, 26, 52].map((n) => (
                      <option key={n} value={n}>
                        {n}
                      </option>
                    ))}
                  </select>
                </label>
                <button
                  type="button"
                  class="secondary"
                  disabled={offset === 0 && cursors.length === 0}
                  onClick={() => {
                    if (offset > 0) setOffset(Math.max(0, offset - size));
                    else {
                      setCursors(cursors.slice(0, -1));
                      setOffset(0);
                    }
                  }}
                >
                  Newer
                </button>
                <button
                  type="button"
                  class="secondary"
                  disabled={!nextInPage && !(p.hasMore && p.nextBefore)}
                  onClick={() => {
                    if (nextInPage) setOffset(offset + size);
                    else if (p.nextBefore) {
                      setCursors([...cursors, p.nextBefore]);
                      setOffset(0);
                    }
                  }}
                >
                  Older
                </button>
              </p>
            </>
          );
        }}
      </Loaded>
    </Section>
  );
}

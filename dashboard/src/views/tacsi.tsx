import { useState } from 'preact/hooks';
import { authHeaders, ProblemError, unwrap, type Client } from '../api.ts';
import type { LicensedSector, Ok } from '../../../sdk/src/client.ts';
import { COLORS, Chart, bandSeries } from '../chart.tsx';
import { Loaded, PageButton, Section, TableHead, cap, useAsync } from '../ui.tsx';

type History = Ok<'/v1/tacsi/history', 'get'>;
type PillarFeed = Ok<'/v1/tacsi/pillars', 'get'>;

function pillarRange(pillars: (PillarFeed | 'denied' | 'unpublished')[]) {
  return sharedRange(pillars.flatMap((p) => (typeof p === 'object' ? [p.series] : [])));
}

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

/** The API's one sentence for any feed this key may not read: the same for every reason. */
function Denied() {
  return (
    <div class="error" role="alert" data-testid="tacsi-denied">
      <p>
        <strong>This key is not licensed for the requested TACSI feed.</strong>
      </p>
    </div>
  );
}

/**
 * The sectors come from GET /v1/tacsi/sectors (what this key may read, nothing else); the chosen one is
 * in the address (#/tacsi/<slug>). A slug not in the list, typed into the address, gets the denial.
 */
export function TacsiView({ client, route }: { client: Client; route: string[] }) {
  const [sectors] = useAsync((signal) => client.GET('/v1/tacsi/sectors', { signal }).then(unwrap), []);
  const [method] = useAsync((signal) => client.GET('/v1/tacsi/methodology', { signal }).then(unwrap), []);
  const [calendar] = useAsync((signal) => client.GET('/v1/tacsi/calendar', { signal }).then(unwrap), []);
  const [allNotices] = useAsync((signal) => client.GET('/v1/tacsi/notices', { signal }).then(unwrap), []);
  const asked = route[1];

  return (
    <>
      <h1>TACSI sector index</h1>
      <Loaded data={sectors}>
        {({ sectors: list }) => {
          const chosen = asked ?? list[0]?.slug;
          const licensed = list.find((x) => x.slug === chosen);
          return (
            <>
              <nav class="card" aria-label="Licensed sectors">
                <h2>Your licensed sectors</h2>
                {list.length === 0 ? (
                  <p>This key holds no TACSI licence valid today.</p>
                ) : (
                  <ul class="sectors" data-testid="tacsi-sectors">
                    {list.map((x) => (
                      <li key={x.slug}>
                        <a
                          href={`#/tacsi/${encodeURIComponent(x.slug)}`}
                          aria-current={x.slug === chosen ? 'page' : undefined}
                        >
                          {x.name}
                        </a>{' '}
                        <span class="muted">{feedsText(x)}</span>
                      </li>
                    ))}
                  </ul>
                )}
              </nav>
              {licensed ? (
                <>
                  <Loaded data={calendar}>{(c) => <Calendar calendar={c} sector={licensed.slug} />}</Loaded>
                  <SectorView key={licensed.slug} client={client} sector={licensed} />
                </>
              ) : (
                chosen !== undefined && <Denied />
              )}
            </>
          );
        }}
      </Loaded>
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
              {m.notices.length > 0 && (
                <div data-testid="tacsi-upcoming-notices">
                  <h3>Announced changes</h3>
                  <ul>
                    {m.notices.map((n) => (
                      <li key={n.id}>
                        <strong>{n.title}</strong> (from {n.effectiveOn}): {n.detail}
                      </li>
                    ))}
                  </ul>
                </div>
              )}
              <p class="muted">
                The index is built from privacy-protected aggregates only: no brand's own score can be read
                from it. Forward signal: {m.forwardSignal.method}, horizon {m.forwardSignal.horizon}, after{' '}
                {m.forwardSignal.minArchiveWeeks} published weeks.
              </p>
            </div>
          )}
        </Loaded>
      </Section>
      <Section title="Methodology notices">
        <Loaded data={allNotices}>
          {({ notices }) =>
            notices.length === 0 ? (
              <p>No methodology notice has been announced.</p>
            ) : (
              <div class="scroll">
                <table data-testid="tacsi-notices">
                  <TableHead cols={['Effective', 'Notice', 'Methodology', 'Announced']} />
                  <tbody>
                    {notices.map((n) => (
                      <tr key={n.id}>
                        <td>{n.effectiveOn}</td>
                        <td>
                          <strong>{n.title}</strong>: {n.detail}
                        </td>
                        <td>{n.methodologyVersion ?? '—'}</td>
                        <td>{n.announcedAt.slice(0, 10)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )
          }
        </Loaded>
      </Section>
    </>
  );
}

type CalendarFeed = Ok<'/v1/tacsi/calendar', 'get'>;

/** When this sector's feeds next publish (from GET /v1/tacsi/calendar), and the lag policy. */
function Calendar({ calendar, sector }: { calendar: CalendarFeed; sector: string }) {
  const entry = calendar.sectors.find((s) => s.slug === sector);
  if (!entry) return null;
  return (
    <Section title="Release calendar">
      <ul data-testid="tacsi-calendar">
        {entry.feeds.map((f) => (
          <li key={f.feed}>
            {cap(f.feed)}: next publication {new Date(f.nextPublication).toUTCString()} (period ending{' '}
            {f.periodEnd})
          </li>
        ))}
      </ul>
      <p class="muted">
        {calendar.lagPolicy.daily}; {calendar.lagPolicy.weekly}. {calendar.lagPolicy.revisions}.
      </p>
    </Section>
  );
}

/** The whole weekly archive as one file (CSV or Parquet); the key goes in the header, never in a URL. */
async function downloadArchive(sector: string, format: 'csv' | 'parquet'): Promise<void> {
  const path = `/v1/tacsi/archive?${new URLSearchParams({ sector, format })}`;
  const response = await fetch(path, { headers: authHeaders() });
  if (!response.ok) {
    let body: unknown = null;
    try {
      body = await response.json();
    } catch {
      /* not JSON: the problem is made of the status */
    }
    throw ProblemError.from(body, response);
  }
  const url = URL.createObjectURL(await response.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = `tacsi-${sector}-weekly.${format}`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * A week-on-week change, marked when it lies inside the 95% margin of a difference of two weeks: each
 * week carries independent noise of margin m, so their difference has margin m * sqrt(2). Such a change
 * is not distinguishable from the noise.
 */
export function changeText(delta: number | null, margin: number): string {
  if (delta === null) return '—';
  const signed = `${delta > 0 ? '+' : ''}${delta.toFixed(2)}`;
  const m = Math.round(margin * Math.SQRT2 * 100) / 100;
  return Math.abs(delta) <= m ? `${signed} (within the ±${m} margin: no clear change)` : signed;
}

/** One y-range for every pillar's chart (values with their margins), so their heights compare. */
function sharedRange(series: { value: number; marginOfError: number }[][]): { min: number; max: number } {
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of series)
    for (const r of s) {
      lo = Math.min(lo, r.value - r.marginOfError);
      hi = Math.max(hi, r.value + r.marginOfError);
    }
  if (!Number.isFinite(lo)) return { min: 0, max: 100 };
  return { min: Math.floor(lo), max: Math.ceil(hi) };
}

function feedsText(x: LicensedSector): string {
  const feeds: string[] = x.feeds.filter((f) => f !== 'pillars');
  if (x.pillars.length) feeds.push(x.pillars.length === 5 ? 'all pillars' : `pillar ${x.pillars.join(', ')}`);
  return feeds.join(' · ');
}

function SectorView({ client, sector: licence }: { client: Client; sector: LicensedSector }) {
  const sector = licence.slug;
  const [feeds] = useAsync(
    async (signal) => {
      const q = { sector };
      const has = (feed: LicensedSector['feeds'][number]) => licence.feeds.includes(feed);
      // Only the feeds the licence lists; a 403 can still come if the licence changed since.
      const [weekly, history, daily, ...pillars] = await Promise.all([
        has('weekly')
          ? maybe(client.GET('/v1/tacsi/weekly', { params: { query: q }, signal }).then(unwrap))
          : 'denied',
        has('history')
          ? maybe(client.GET('/v1/tacsi/history', { params: { query: q }, signal }).then(unwrap))
          : 'denied',
        has('daily')
          ? maybe(client.GET('/v1/tacsi/daily', { params: { query: q }, signal }).then(unwrap))
          : 'denied',
        ...licence.pillars.map((pillar) =>
          maybe(
            client.GET('/v1/tacsi/pillars', { params: { query: { sector, pillar } }, signal }).then(unwrap),
          ),
        ),
      ]);
      const all = [weekly, history, daily, ...pillars];
      const any = all.some((f) => f !== 'denied');
      // Licensed, but nothing published: a 404 Not Published, or an archive with no week in it yet.
      const published = all.some(
        (f) =>
          typeof f === 'object' &&
          !('rows' in f && f.rows.length === 0) &&
          !('series' in f && f.series.length === 0),
      );
      return { any, published, weekly, history, daily, pillars };
    },
    [sector],
  );
  return (
    <Loaded data={feeds}>
      {(f) =>
        !f.any ? (
          <Denied />
        ) : !f.published ? (
          <Section title={`${licence.name}: not published yet`}>
            <p data-testid="tacsi-unpublished">
              Nothing has been published for {licence.name} yet. A sector's index is published once at least
              50 brands with data stand behind it, so that no brand can be read from it; until then there is
              no index, margin or chart to show. The release calendar above says when its feeds next publish.
            </p>
          </Section>
        ) : (
          <div data-testid="tacsi-sector">
            {typeof f.weekly === 'object' && (
              <Section title={`Latest week: ${licence.name}`}>
                <p class="big">
                  {f.weekly.indexValue.toFixed(1)}{' '}
                  <span class="muted">± {f.weekly.marginOfError.indexValue} (95%)</span>
                </p>
                <p>
                  Week ending {f.weekly.periodEnd}; change{' '}
                  <span data-testid="tacsi-weekly-change">
                    {changeText(f.weekly.delta, f.weekly.marginOfError.indexValue)}
                  </span>
                  ; cohort {f.weekly.cohortBand}; {f.weekly.methodologyVersion}.{' '}
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
                <p class="muted" data-testid="tacsi-pillar-scale">
                  Every pillar chart uses the same scale, {pillarRange(f.pillars).min} to{' '}
                  {pillarRange(f.pillars).max}, so their levels compare at a glance.
                </p>
                <div class="multiples">
                  {f.pillars.map((p, i) =>
                    typeof p === 'object' ? (
                      <div key={p.pillar}>
                        <h3>{cap(p.pillar)}</h3>
                        <Chart
                          height={160}
                          label={`${p.pillar}: ${p.series.length} weekly values with their 95% margin`}
                          option={axisOption({
                            yAxis: { type: 'value', ...pillarRange(f.pillars) },
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

/**
 * The weekly archive a page at a time, following the API's `before` cursor; optionally as it could be
 * read at an earlier instant (`asOf`); and the whole archive as one download.
 */
function Archive({ client, sector }: { client: Client; sector: string }) {
  const [cursors, setCursors] = useState<string[]>([]);
  const [asOf, setAsOf] = useState('');
  const [downloadError, setDownloadError] = useState<string | null>(null);
  const before = cursors.at(-1);
  const [page] = useAsync(
    async (signal): Promise<History> => {
      const query = {
        sector,
        ...(before ? { before } : {}),
        ...(asOf ? { asOf: new Date(`${asOf}:00Z`).toISOString() } : {}),
      };
      return unwrap(await client.GET('/v1/tacsi/history', { params: { query }, signal }));
    },
    [sector, before, asOf],
  );
  const [size, setSize] = useState(26);
  const [offset, setOffset] = useState(0);
  return (
    <Section title="Archive">
      <p class="row">
        <label>
          As of (UTC){' '}
          <input
            type="datetime-local"
            data-testid="tacsi-as-of"
            value={asOf}
            onChange={(e) => {
              setAsOf(e.currentTarget.value);
              setCursors([]);
              setOffset(0);
            }}
          />
        </label>
        {(['csv', 'parquet'] as const).map((format) => (
          <button
            key={format}
            type="button"
            data-testid={`tacsi-download-${format}`}
            onClick={() => {
              setDownloadError(null);
              downloadArchive(sector, format).catch((e: unknown) =>
                setDownloadError(e instanceof Error ? e.message : String(e)),
              );
            }}
          >
            Download the whole archive ({format === 'csv' ? 'CSV' : 'Parquet'})
          </button>
        ))}
      </p>
      {downloadError && (
        <p class="error" role="alert">
          {downloadError}
        </p>
      )}
      <Loaded data={page}>
        {(p) => {
          const rows = p.rows.slice(offset, offset + size);
          const nextInPage = offset + size < p.rows.length;
          return (
            <>
              <div class="scroll">
                <table data-testid="tacsi-archive">
                  <TableHead
                    cols={['Week ending', 'Index', '±95%', 'Change', 'Cohort', 'Methodology', 'Published']}
                  />
                  <tbody>
                    {rows.map((r) => (
                      <tr key={r.periodEnd}>
                        <td>{r.periodEnd}</td>
                        <td>{r.indexValue.toFixed(2)}</td>
                        <td>{r.marginOfError.indexValue}</td>
                        <td>{changeText(r.delta, r.marginOfError.indexValue)}</td>
                        <td>{r.cohortBand}</td>
                        <td>{r.methodologyVersion}</td>
                        <td>{r.publishedAt.slice(0, 16).replace('T', ' ')}</td>
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
                <PageButton
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
                </PageButton>
                <PageButton
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
                </PageButton>
              </p>
            </>
          );
        }}
      </Loaded>
    </Section>
  );
}

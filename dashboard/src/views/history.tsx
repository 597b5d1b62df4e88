import { useState } from 'preact/hooks';
import type { components } from '../../../sdk/src/schema.d.ts';
import { PILLARS, ProblemError, unwrap } from '../api.ts';
import { Chart } from '../chart.tsx';
import type { ViewProps } from '../main.tsx';
import { ErrorBox, Loaded, Section, cap, useAsync, RoleNote } from '../ui.tsx';

type Granularity = 'daily' | 'weekly' | 'monthly';
type TimelineEntry = components['schemas']['TimelineAnnotation'];
const CATEGORIES = ['note', 'launch', 'campaign', 'crisis', 'press', 'other'] as const;
type Category = (typeof CATEGORIES)[number];

/** Marker colours (4.5:1 on white): people's notes, the service's events, crises. */
const NOTE_COLOR = '#7c3aed';
const SERVICE_COLOR = '#475569';
const CRISIS_COLOR = '#be123c';
const colorOf = (a: TimelineEntry) =>
  a.category === 'crisis' ? CRISIS_COLOR : a.source === 'user' ? NOTE_COLOR : SERVICE_COLOR;

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function HistoryView({ session, workspaceId }: ViewProps) {
  const { client } = session;
  const today = new Date().toISOString().slice(0, 10);
  const yearAgo = new Date(Date.now() - 365 * 86_400_000).toISOString().slice(0, 10);
  const [granularity, setGranularity] = useState<Granularity>('weekly');
  const [start, setStart] = useState(yearAgo);
  const [end, setEnd] = useState(today);
  const [applied, setApplied] = useState({ granularity, start, end });
  const [history, reload] = useAsync(
    async (signal) => {
      const query = {
        ...(workspaceId ? { workspace_id: workspaceId } : {}),
        granularity: applied.granularity,
        ...(applied.start ? { start_date: applied.start } : {}),
        ...(applied.end ? { end_date: applied.end } : {}),
      };
      return unwrap(await client.GET('/v1/score/history', { params: { query }, signal }));
    },
    [workspaceId, applied],
  );

  return (
    <>
      <h1>History</h1>
      <form
        class="controls card"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied({ granularity, start, end });
        }}
      >
        <label>
          Granularity
          <select value={granularity} onChange={(e) => setGranularity(e.currentTarget.value as Granularity)}>
            <option value="daily">Daily</option>
            <option value="weekly">Weekly</option>
            <option value="monthly">Monthly</option>
          </select>
        </label>
        <label>
          From
          <input type="date" value={start} max={end} onInput={(e) => setStart(e.currentTarget.value)} />
        </label>
        <label>
          To
          <input type="date" value={end} min={start} onInput={(e) => setEnd(e.currentTarget.value)} />
        </label>
        <button type="submit">Show</button>
      </form>
      <Loaded data={history}>
        {(h) => (
          <>
            <Section title={`Score and pillars, ${h.granularity}`}>
              <p>
                Change over the range: <strong>{h.delta.score}</strong> ({h.delta.period}); {h.data.length}{' '}
                points
                {h.annotations.length > 0 && `, ${h.annotations.length} note(s) and event(s) marked`}.
              </p>
              <Chart
                height={360}
                testId="history-chart"
                label={`Score history, ${h.data.length} ${h.granularity} points from ${h.data[0]?.date ?? '-'} to ${h.data.at(-1)?.date ?? '-'}, with ${h.annotations.length} notes and events (listed under the chart)`}
                option={{
                  legend: { top: 0 },
                  tooltip: { trigger: 'axis' },
                  grid: { left: 40, right: 16, top: 40, bottom: 60 },
                  xAxis: { type: 'time' },
                  yAxis: { type: 'value', min: 0, max: 100 },
                  dataZoom: [{ type: 'inside' }, { type: 'slider', height: 18, bottom: 8 }],
                  series: [
                    {
                      name: 'Score',
                      type: 'line',
                      symbol: 'none',
                      lineStyle: { width: 3 },
                      data: h.data.map((d) => [d.date, d.score]),
                      markLine: {
                        symbol: 'none',
                        silent: true,
                        label: { show: false },
                        data: h.annotations.map((a) => ({
                          xAxis: a.day,
                          lineStyle: { color: colorOf(a), type: a.source === 'user' ? 'solid' : 'dashed' },
                        })),
                      },
                      markPoint: {
                        symbol: 'pin',
                        symbolSize: 22,
                        label: { show: false },
                        tooltip: {
                          trigger: 'item',
                          formatter: (p: { data: { entry: TimelineEntry } }) => {
                            const a = p.data.entry;
                            const by = a.source === 'user' ? (a.author ?? 'a note') : 'the service';
                            return `${escape(a.day)}: ${escape(a.text)}<br/>${escape(a.category)}, by ${escape(by)}`;
                          },
                        },
                        data: h.annotations.map((a) => ({
                          coord: [a.day, 97],
                          entry: a,
                          itemStyle: { color: colorOf(a) },
                        })),
                      },
                    },
                    ...PILLARS.map((p) => ({
                      name: cap(p),
                      type: 'line',
                      symbol: 'none',
                      lineStyle: { width: 1 },
                      data: h.data.map((d) => [d.date, d.pillars[p]]),
                    })),
                  ],
                }}
              />
              <Notes annotations={h.annotations} />
            </Section>
            {workspaceId ? (
              <p>Notes are added from the client's own dashboard.</p>
            ) : (
              <AddNote session={session} onAdded={reload} defaultDay={today} />
            )}
          </>
        )}
      </Loaded>
    </>
  );
}

function Notes({ annotations }: { annotations: TimelineEntry[] }) {
  if (annotations.length === 0) return <p data-testid="history-notes">No notes or events in this range.</p>;
  return (
    <>
      <h3>Notes and events</h3>
      <ul class="notes" data-testid="history-notes">
        {annotations.map((a, i) => (
          <li key={`${a.day}-${a.kind}-${a.ref ?? i}`} data-source={a.source} data-kind={a.kind}>
            <time dateTime={a.day}>{a.day}</time> <span style={{ color: colorOf(a) }}>●</span> {a.text}{' '}
            <small>
              (
              {a.source === 'user'
                ? `${a.category}${a.author ? `, ${a.author}` : ''}`
                : 'recorded by the service'}
              )
            </small>
          </li>
        ))}
      </ul>
    </>
  );
}

function AddNote(props: { session: ViewProps['session']; onAdded: () => void; defaultDay: string }) {
  const [day, setDay] = useState(props.defaultDay);
  const [text, setText] = useState('');
  const [category, setCategory] = useState<Category>('note');
  const [author, setAuthor] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [readOnly, setReadOnly] = useState(false);
  if (readOnly || !props.session.can('campaign.manage'))
    return <RoleNote role={props.session.role} what="adding a note" />;
  return (
    <Section title="Add a note">
      <form
        class="stack-form"
        data-testid="note-form"
        onSubmit={async (e) => {
          e.preventDefault();
          setError(null);
          try {
            unwrap(
              await props.session.client.POST('/v1/annotations', {
                body: { day, text, category, ...(author.trim() ? { author: author.trim() } : {}) },
              }),
            );
            setText('');
            props.onAdded();
          } catch (err) {
            // A read-only key: the form goes, with why.
            if (err instanceof ProblemError && err.status === 403) setReadOnly(true);
            else setError(err);
          }
        }}
      >
        <label for="note-day">Day</label>
        <input
          id="note-day"
          type="date"
          required
          value={day}
          onInput={(e) => setDay(e.currentTarget.value)}
        />
        <label for="note-text">Note</label>
        <input
          id="note-text"
          required
          maxLength={500}
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
        <label for="note-category">Category</label>
        <select
          id="note-category"
          value={category}
          onChange={(e) => setCategory(e.currentTarget.value as Category)}
        >
          {CATEGORIES.map((c) => (
            <option key={c} value={c}>
              {cap(c)}
            </option>
          ))}
        </select>
        <label for="note-author">Author (optional)</label>
        <input
          id="note-author"
          maxLength={200}
          value={author}
          onInput={(e) => setAuthor(e.currentTarget.value)}
        />
        <button type="submit">Add note</button>
      </form>
      {error !== null && <ErrorBox error={error} />}
    </Section>
  );
}

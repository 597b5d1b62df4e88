import { useState } from 'preact/hooks';
import { PILLARS, unwrap } from '../api.ts';
import { Chart } from '../chart.tsx';
import type { ViewProps } from '../main.tsx';
import { Loaded, Section, cap, useAsync } from '../ui.tsx';

type Granularity = 'daily' | 'weekly' | 'monthly';

export function HistoryView({ session, workspaceId }: ViewProps) {
  const { client } = session;
  const today = new Date().toISOString().slice(0, 10);
  const yearAgo = new Date(Date.now() - 365 * 86_400_000).toISOString().slice(0, 10);
  const [granularity, setGranularity] = useState<Granularity>('weekly');
  const [start, setStart] = useState(yearAgo);
  const [end, setEnd] = useState(today);
  const [applied, setApplied] = useState({ granularity, start, end });
  const [history] = useAsync(
    async (signal) => {
      const query = {
        ...(workspaceId ? { workspace_id: workspaceId } : {}),
        granularity: applied.granularity,
        ...(applied.start ? { start_date: applied.start } : {}),
        ...(applied.end ? { end_date: applied.end } : {}),
      };
      const history = unwrap(await client.GET('/v1/score/history', { params: { query }, signal }));
      // The completed audits of the range, by completion day: newest first, so stop past its start.
      const from = applied.start || (history.data[0]?.date ?? '');
      const to = applied.end || '9999-12-31';
      const audits: string[] = [];
      for await (const a of client.audits(
        { ...(workspaceId ? { workspace_id: workspaceId } : {}), status: 'completed' },
        { signal },
      )) {
        const done = a.completed_at?.slice(0, 10);
        if (!done || a.created_at.slice(0, 10) < from) break;
        if (done >= from && done <= to) audits.push(done);
      }
      return { history, audits };
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
        {({ history: h, audits }) => (
          <Section title={`Score and pillars, ${h.granularity}`}>
            <p>
              Change over the range: <strong>{h.delta.score}</strong> ({h.delta.period}); {h.data.length}{' '}
              points
              {audits.length > 0 && `, ${audits.length} audit(s) marked`}.
            </p>
            <Chart
              height={360}
              testId="history-chart"
              label={`Score history, ${h.data.length} ${h.granularity} points from ${h.data[0]?.date ?? '-'} to ${h.data.at(-1)?.date ?? '-'}`}
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
                      label: { formatter: 'audit', color: '#1f2937' },
                      lineStyle: { color: '#be123c', type: 'dashed' },
                      data: audits.map((d) => ({ xAxis: d, name: 'Audit' })),
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
          </Section>
        )}
      </Loaded>
    </>
  );
}

import { useEffect, useRef, useState } from 'preact/hooks';
import { PILLARS, unwrap } from '../api.ts';
import type { AuditResult, AuditStart } from '../../../sdk/src/client.ts';
import { Chart } from '../chart.tsx';
import type { ViewProps } from '../main.tsx';
import {
  ErrorBox,
  Loaded,
  OffsetPager,
  Drivers,
  Recommendations,
  Section,
  TableHead,
  cap,
  useAsync,
  when,
  RoleNote,
} from '../ui.tsx';

const PAGE = 10;
type StatusFilter = '' | 'completed' | 'failed' | 'processing';

export function AuditsView(props: ViewProps) {
  const id = props.route[0] === 'audits' ? props.route[1] : undefined;
  return id ? <AuditDetail {...props} auditId={id} /> : <AuditList {...props} />;
}

function AuditList({ session, workspaceId }: ViewProps) {
  const { client } = session;
  const wsId = workspaceId ?? session.workspace.id;
  const [lookback, setLookback] = useState(30);
  const [running, setRunning] = useState<AuditStart | null>(null);
  const [progress, setProgress] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<AuditResult | null>(null);
  const abort = useRef<AbortController | null>(null);
  useEffect(() => () => abort.current?.abort(), []);

  useEffect(() => {
    if (!running) return;
    const startedAt = Date.now();
    const total = Math.max(1000, Date.parse(running.estimated_completion) - startedAt);
    const timer = setInterval(() => setProgress(Math.min(0.95, (Date.now() - startedAt) / total)), 250);
    return () => clearInterval(timer);
  }, [running]);

  // Bumped when an audit starts or ends, so the list of past audits is read again.
  const [pastTick, setPastTick] = useState(0);

  const run = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setDone(null);
    setProgress(0);
    abort.current = new AbortController();
    try {
      // The SDK starts the audit (with an Idempotency-Key) and polls it, waiting as Retry-After says.
      const result = await client.runAudit(
        { lookback_days: lookback, ...(workspaceId ? { workspace_id: workspaceId } : {}) },
        {
          signal: abort.current.signal,
          onStart: (start) => {
            setRunning(start);
            setPastTick((n) => n + 1);
          },
        },
      );
      setProgress(1);
      setDone(result);
      setPastTick((n) => n + 1);
    } catch (err) {
      setError(err);
    } finally {
      setRunning(null);
    }
  };

  return (
    <>
      <h1>Audits</h1>
      {!session.can('audit.run') && <RoleNote role={session.role} what="running an audit" />}
      <Section title="Run an audit" hidden={!session.can('audit.run')}>
        <form class="controls" onSubmit={run}>
          <label>
            Look back (days)
            <input
              type="number"
              min={7}
              max={365}
              value={lookback}
              onInput={(e) => setLookback(Number(e.currentTarget.value))}
            />
          </label>
          <button type="submit" disabled={running !== null}>
            {running ? 'Running…' : 'Run audit'}
          </button>
        </form>
        {running && (
          <div role="status" aria-live="polite">
            <label for="audit-progress">
              Audit of {running.platforms_included.map(cap).join(', ')}: estimated done at{' '}
              {when(running.estimated_completion)}
            </label>
            <progress id="audit-progress" max={1} value={progress} />
          </div>
        )}
        {done && (
          <p role="status" data-testid="audit-done">
            Audit {done.status}
            {done.status === 'completed'
              ? `: score ${done.score.toFixed(1)} (${done.grade}). `
              : `: ${done.failure_reason} `}
            <a href={`#/audits/${encodeURIComponent(done.audit_id)}`}>Open the audit</a>
          </p>
        )}
        {error !== null && <ErrorBox error={error} />}
      </Section>
      <PastAudits key={wsId} session={session} workspaceId={workspaceId} tick={pastTick} />
    </>
  );
}

/** The workspace's audits from GET /v1/audits, newest first, a page at a time. */
function PastAudits({
  session,
  workspaceId,
  tick,
}: Pick<ViewProps, 'session' | 'workspaceId'> & { tick: number }) {
  const [status, setStatus] = useState<StatusFilter>('');
  const [offset, setOffset] = useState(0);
  const [page] = useAsync(
    (signal) =>
      session.client
        .GET('/v1/audits', {
          params: {
            query: {
              ...(workspaceId ? { workspace_id: workspaceId } : {}),
              ...(status ? { status } : {}),
              limit: PAGE,
              offset,
            },
          },
          signal,
        })
        .then(unwrap),
    [workspaceId, status, offset, tick],
  );
  return (
    <Section title="Past audits">
      <p class="row">
        <label>
          Show{' '}
          <select
            value={status}
            onChange={(e) => {
              setStatus(e.currentTarget.value as StatusFilter);
              setOffset(0);
            }}
          >
            <option value="">All audits</option>
            <option value="completed">Completed</option>
            <option value="failed">Failed</option>
            <option value="processing">Running</option>
          </select>
        </label>
      </p>
      <Loaded data={page}>
        {(p) =>
          p.total === 0 ? (
            <p>{status ? 'No audit in this state.' : 'No audit has been run for this workspace yet.'}</p>
          ) : (
            <>
              <div class="scroll">
                <table data-testid="audit-list">
                  <TableHead cols={['Started', 'Status', 'Result', 'Platforms', 'Audit']} />
                  <tbody>
                    {p.audits.map((a) => (
                      <tr key={a.audit_id}>
                        <td>{when(a.created_at)}</td>
                        <td>{a.status === 'processing' ? 'running' : a.status}</td>
                        <td>
                          {a.status === 'completed' && a.score !== null
                            ? `${a.score.toFixed(1)} (${a.grade})`
                            : a.status === 'failed'
                              ? a.failure_reason
                              : `due ${when(a.estimated_completion)}`}
                        </td>
                        <td>{a.platforms_included.map(cap).join(', ')}</td>
                        <td>
                          <a
                            href={`#/audits/${encodeURIComponent(a.audit_id)}`}
                            aria-label={`Details of the audit started ${when(a.created_at)}`}
                          >
                            Details
                          </a>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <OffsetPager
                offset={p.offset}
                limit={PAGE}
                shown={p.audits.length}
                total={p.total}
                onOffset={setOffset}
              />
            </>
          )
        }
      </Loaded>
    </Section>
  );
}

function AuditDetail({ session, auditId }: ViewProps & { auditId: string }) {
  const [audit] = useAsync((signal) => session.client.waitForAudit(auditId, { signal }), [auditId]);
  return (
    <>
      <p>
        <a href="#/audits">← All audits</a>
      </p>
      <h1>Audit {auditId}</h1>
      <Loaded data={audit}>
        {(a) =>
          a.status === 'failed' ? (
            <Section title="Failed">
              <p>
                Failed {when(a.failed_at)}: {a.failure_reason}
              </p>
            </Section>
          ) : (
            <>
              <div class="grid">
                <Section title="Result">
                  <p class="big">
                    {a.score.toFixed(1)} <span class="grade">{a.grade}</span>
                  </p>
                  <p class="muted">
                    Completed {when(a.completed_at)} · formula {a.formula_version}
                  </p>
                  <table>
                    <TableHead cols={['Pillar', 'Score', 'Change', 'Grade']} />
                    <tbody>
                      {PILLARS.map((p) => (
                        <tr key={p}>
                          <th scope="row">{cap(p)}</th>
                          <td>{a.pillars[p].score.toFixed(1)}</td>
                          <td>{a.pillars[p].change}</td>
                          <td>{a.pillars[p].grade}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </Section>
                <Section title="Industry benchmark">
                  <Benchmark b={a.industry_benchmark} />
                </Section>
              </div>
              <Section title="What moves this score">
                <Drivers drivers={a.drivers} formula={a.formula_version} top={5} testId="audit-drivers" />
              </Section>
              <Section title="Recommendations">
                <Recommendations items={a.recommendations} />
              </Section>
            </>
          )
        }
      </Loaded>
    </>
  );
}

function Benchmark({ b }: { b: Extract<AuditResult, { status: 'completed' }>['industry_benchmark'] }) {
  return (
    <div data-testid="benchmark">
      {b.industry_average === null ? (
        <p>No industry average: {b.basis?.reason ?? 'the sector has no published benchmark.'}</p>
      ) : (
        <Chart
          height={160}
          label={`Your score ${b.your_score} against the industry average ${b.industry_average}`}
          option={{
            grid: { left: 120, right: 40, top: 10, bottom: 30 },
            xAxis: { type: 'value', min: 0, max: 100 },
            yAxis: { type: 'category', data: ['Your score', 'Industry average'], inverse: true },
            series: [
              {
                type: 'bar',
                name: 'Score',
                data: [b.your_score, b.industry_average],
                label: { show: true, position: 'right', color: '#1f2937' },
              },
            ],
          }}
        />
      )}
      {b.percentile !== null && (
        <p>
          Percentile in the sector: <strong>{b.percentile}</strong>
        </p>
      )}
      {b.basis && (
        <p class="muted">
          {b.basis.sector ? `Sector ${b.basis.sector}` : 'No sector'}
          {b.basis.period_end ? `, week ending ${b.basis.period_end}` : ''}
          {b.basis.margin_of_error !== null ? `, ±${b.basis.margin_of_error} (95%)` : ''}
          {b.basis.methodology_version ? `, ${b.basis.methodology_version}` : ''}
        </p>
      )}
    </div>
  );
}

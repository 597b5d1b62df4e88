import { useState } from 'preact/hooks';
import { downloadFile, unwrap } from '../api.ts';
import type { ViewProps } from '../main.tsx';
import {
  ErrorBox,
  Loaded,
  OffsetPager,
  Section,
  TableHead,
  day,
  useAsync,
  when,
  RoleNote,
  useAction,
} from '../ui.tsx';

type Cadence = 'weekly' | 'monthly';
type Scope = 'workspace' | 'all_clients';

/** Scheduled reports (docs/reports.md): the schedules, the reports they made, a new schedule, the PDFs. */
export function ReportsView({ session, workspaceId }: ViewProps) {
  const { client } = session;
  const [schedules, reloadSchedules] = useAsync(
    (signal) => client.GET('/v1/report-schedules', { signal }).then(unwrap),
    [],
  );
  const [offset, setOffset] = useState(0);
  const limit = 20;
  const [reports, reloadReports] = useAsync(
    (signal) => client.GET('/v1/reports', { params: { query: { limit, offset } }, signal }).then(unwrap),
    [offset],
  );
  const [name, setName] = useState('');
  const [cadence, setCadence] = useState<Cadence>('weekly');
  const [scope, setScope] = useState<Scope>('workspace');
  const [recipients, setRecipients] = useState('');
  const { error, run } = useAction();
  const [notice, setNotice] = useState('');

  const create = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      setNotice('');
      const made = unwrap(
        await client.POST('/v1/report-schedules', {
          body: {
            ...(name.trim() ? { name: name.trim() } : {}),
            scope,
            ...(scope === 'workspace' && workspaceId ? { workspace_id: workspaceId } : {}),
            cadence,
            recipients: recipients.split(/[,\s]+/).filter(Boolean),
          },
        }),
      );
      setName('');
      setNotice(`Scheduled "${made.name}".`);
      reloadSchedules();
    });
  };
  const act = (work: () => Promise<unknown>) =>
    run(async () => {
      setNotice('');
      await work();
    });
  const generate = (id: string) =>
    act(async () => {
      const report = unwrap(
        await client.POST('/v1/report-schedules/{schedule_id}/generate', {
          params: { path: { schedule_id: id } },
          body: {},
        }),
      );
      setNotice(`Report of ${report.period_start} to ${report.period_end}: ${report.status}.`);
      reloadReports();
    });
  const remove = (id: string) =>
    act(async () => {
      unwrap(
        await client.DELETE('/v1/report-schedules/{schedule_id}', { params: { path: { schedule_id: id } } }),
      );
      reloadSchedules();
    });
  const pdf = (id: string, period: string) =>
    act(() => downloadFile(`/v1/reports/${id}/pdf`, `report-${period}.pdf`, 'application/pdf', 'PDF'));

  return (
    <>
      <h1>Reports</h1>
      {!session.can('report.manage') && <RoleNote role={session.role} what="scheduling a report" />}
      <Section title="Schedule a report" hidden={!session.can('report.manage')}>
        <form class="stack-form" data-testid="schedule-form" onSubmit={create}>
          <label for="schedule-name">Name (optional)</label>
          <input
            id="schedule-name"
            maxLength={200}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <label for="schedule-scope">Covers</label>
          <select
            id="schedule-scope"
            value={scope}
            onChange={(e) => setScope(e.currentTarget.value as Scope)}
          >
            <option value="workspace">{workspaceId ? 'This client' : 'This workspace'}</option>
            <option value="all_clients">All clients</option>
          </select>
          <label for="schedule-cadence">Every</label>
          <select
            id="schedule-cadence"
            value={cadence}
            onChange={(e) => setCadence(e.currentTarget.value as Cadence)}
          >
            <option value="weekly">Week (Monday to Sunday, UTC)</option>
            <option value="monthly">Month</option>
          </select>
          <label for="schedule-recipients">Recipients (comma-separated emails)</label>
          <input
            id="schedule-recipients"
            required
            value={recipients}
            onInput={(e) => setRecipients(e.currentTarget.value)}
          />
          <button type="submit">Schedule</button>
        </form>
        {notice && <p role="status">{notice}</p>}
        {error !== null && <ErrorBox error={error} />}
      </Section>
      <Section title="Schedules">
        <Loaded data={schedules}>
          {(s) =>
            s.schedules.length === 0 ? (
              <p data-testid="report-schedules">None yet.</p>
            ) : (
              <div class="scroll">
                <table data-testid="report-schedules">
                  <TableHead cols={['Name', 'Covers', 'Every', 'Recipients', 'Created', 'Actions']} />
                  <tbody>
                    {s.schedules.map((x) => (
                      <tr key={x.id}>
                        <td>{x.name}</td>
                        <td>
                          {x.scope === 'all_clients'
                            ? 'all clients'
                            : x.workspace_id === session.workspace.id
                              ? 'this workspace'
                              : 'one client'}
                        </td>
                        <td>{x.cadence === 'weekly' ? 'week' : 'month'}</td>
                        <td class="wrap">{x.recipients.join(', ')}</td>
                        <td>{day(x.created_at)}</td>
                        <td class="row">
                          {session.can('report.manage') && (
                            <>
                              <button type="button" class="secondary" onClick={() => generate(x.id)}>
                                Generate last period
                              </button>
                              <button type="button" class="secondary" onClick={() => remove(x.id)}>
                                Delete
                              </button>
                            </>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )
          }
        </Loaded>
      </Section>
      <Section title="Generated reports">
        <p>
          <button type="button" class="secondary" onClick={reloadReports}>
            Refresh
          </button>
        </p>
        <Loaded data={reports}>
          {(r) =>
            r.reports.length === 0 ? (
              <p data-testid="reports">None yet: a report is made when a scheduled period ends.</p>
            ) : (
              <>
                <div class="scroll">
                  <table data-testid="reports">
                    <TableHead cols={['Period', 'Status', 'Ready', 'Emailed', 'Download']} />
                    <tbody>
                      {r.reports.map((x) => (
                        <tr key={x.id}>
                          <td>
                            {x.period_start} to {x.period_end}
                          </td>
                          <td class="wrap">
                            {x.status}
                            {x.failure_reason ? `: ${x.failure_reason}` : ''}
                          </td>
                          <td>{when(x.ready_at)}</td>
                          <td>{when(x.emailed_at)}</td>
                          <td>
                            <button
                              type="button"
                              class="secondary"
                              disabled={x.status !== 'ready'}
                              onClick={() => pdf(x.id, x.period_start)}
                            >
                              PDF
                            </button>
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                <OffsetPager
                  offset={offset}
                  limit={limit}
                  shown={r.reports.length}
                  total={r.total}
                  onOffset={setOffset}
                />
              </>
            )
          }
        </Loaded>
      </Section>
    </>
  );
}

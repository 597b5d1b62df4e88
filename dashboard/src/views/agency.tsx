import { useState } from 'preact/hooks';
import { downloadCsv, unwrap } from '../api.ts';
import type { ViewProps } from '../main.tsx';
import { ErrorBox, Loaded, Section, TableHead, useAsync, when, useAction } from '../ui.tsx';

interface Row {
  workspaceId: string;
  name: string;
  kind: string;
  imprsScore: number | null;
  grade: string | null;
  scoredAt: string | null;
}

export function AgencyView({ session }: ViewProps) {
  const { client } = session;
  const [rows] = useAsync(async (signal) => {
    const [clients, creators] = await Promise.all([
      client.GET('/v1/export/clients', { signal }).then(unwrap),
      client.GET('/v1/export/creators', { signal }).then(unwrap),
    ]);
    const creatorIds = new Set(creators.creators.map((c) => c.workspaceId));
    const all: Row[] = [
      ...clients.clients.filter((c) => !creatorIds.has(c.workspaceId)).map((c) => ({ ...c, kind: 'client' })),
      ...creators.creators.map((c) => ({ ...c, kind: 'creator' })),
    ];
    return all;
  }, []);
  const [since, setSince] = useState(() => new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10));
  const [log] = useAsync(
    (signal) =>
      client.GET('/v1/export/scores', { params: { query: { since, limit: 100 } }, signal }).then(unwrap),
    [since],
  );
  const { error, run } = useAction();

  const csv = (path: string, name: string) =>
    run(async () => {
      await downloadCsv(path, name);
    });
  const open = (r: Row) => {
    dispatchEvent(new CustomEvent('bh:open-client', { detail: { id: r.workspaceId, name: r.name } }));
    location.hash = '#/workspace';
  };

  return (
    <>
      <h1>Agency</h1>
      <Section title="Downloads (CSV)">
        <p class="row">
          <button type="button" class="secondary" onClick={() => csv('/v1/export/clients', 'clients.csv')}>
            Clients CSV
          </button>
          <button type="button" class="secondary" onClick={() => csv('/v1/export/creators', 'creators.csv')}>
            Creators CSV
          </button>
          <button
            type="button"
            class="secondary"
            onClick={() =>
              csv(`/v1/export/scores?since=${encodeURIComponent(since)}&limit=1000`, 'score-log.csv')
            }
          >
            Score log CSV
          </button>
        </p>
        {error !== null && <ErrorBox error={error} />}
      </Section>
      <Section title="Clients and creators">
        <Loaded data={rows}>
          {(all) => (
            <div class="scroll">
              <table data-testid="clients">
                <TableHead
                  cols={['Name', 'Type', 'Score', 'Grade', 'Scored at', <span class="sr-only">Open</span>]}
                />
                <tbody>
                  {all.map((r) => (
                    <tr key={r.workspaceId}>
                      <th scope="row">{r.name}</th>
                      <td>{r.kind}</td>
                      <td>{r.imprsScore ?? '—'}</td>
                      <td>{r.grade ?? '—'}</td>
                      <td>{when(r.scoredAt)}</td>
                      <td>
                        <button type="button" class="secondary" onClick={() => open(r)}>
                          Open {r.name}
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Loaded>
      </Section>
      <Section title="Score log">
        <label>
          Since{' '}
          <input
            type="date"
            value={since}
            onInput={(e) => e.currentTarget.value && setSince(e.currentTarget.value)}
          />
        </label>
        <Loaded data={log}>
          {(l) => (
            <div class="scroll">
              <p>
                {l.count} rows (newest 100) for {l.scope.workspaceName} and {l.scope.clientCount} clients.
              </p>
              <table data-testid="score-log">
                <TableHead cols={['Recorded', 'Workspace', 'Platform', 'Score', 'Grade']} />
                <tbody>
                  {l.scores.map((s) => (
                    <tr key={`${s.workspaceId}-${s.platform}-${s.recordedAt}`}>
                      <td>{when(s.recordedAt)}</td>
                      <td>{s.workspaceName}</td>
                      <td>{s.platform}</td>
                      <td>{s.overallScore}</td>
                      <td>{s.grade}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Loaded>
      </Section>
    </>
  );
}

// Every codec of the metric snapshot, derived from core/metric-snapshot.ts, carries every metric
// through unchanged: the table matches the field list, and values survive ingestion, the CSV and
// JSONL imports, the scoring reads (rows and packed JSON) and the bulk COPY read. Each metric gets a
// distinct value near its type's limit, so a swapped, dropped or truncated column fails here.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import {
  METRIC_COLUMNS,
  METRIC_FIELDS,
  snapshotFromValues,
  snapshotToRow,
  type DailySnapshot,
} from '../../src/core/metric-snapshot.ts';
import { importMetrics } from '../../src/ingest/import-file.ts';
import { snapshotRow, upsertSnapshots } from '../../src/ingest/store.ts';
import { emptyColumns, generateSnapshots, brandProfile } from '../../src/sandbox/metrics.ts';
import { snapshotsByWorkspace } from '../../src/scoring/bulk-io.ts';
import { loadSnapshots, loadSnapshotsForScoring } from '../../src/scoring/snapshots.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => t?.close());

/** A snapshot whose every metric differs from the others and sits near its column type's limit. */
function distinctSnapshot(day: string, salt: number): DailySnapshot {
  const s = { platform: 'youtube', day } as DailySnapshot;
  const values = s as unknown as Record<string, number | string>;
  METRIC_FIELDS.forEach((f, i) => {
    const text = `model-${i}@v${salt}.${'x'.repeat(80)}`; // the longest kind of value sentiment_model allows
    values[f.key] =
      f.sqlType === 'text'
        ? f.pattern.test(text)
          ? text
          : 'post' // engagement_dating: its value other than the default
        : f.sqlType === 'bigint'
          ? 9_000_000_000_000_000 + i * 1_000 + salt
          : f.sqlType === 'integer'
            ? 2_147_000_000 + i * 1_000 + salt
            : (i + salt) / 64 / 2; // exact in a float4 `real`, within [0, 1]
  });
  // A part of another column stays below it (comments_repeat within comments_attributed).
  METRIC_FIELDS.forEach((f, i) => {
    if (!('atMost' in f)) return;
    const whole = METRIC_FIELDS.find((g) => g.column === f.atMost)!;
    values[f.key] = Number(values[whole.key]) - 1 - i;
  });
  return s;
}

async function readAll(workspaceId: string): Promise<Record<string, DailySnapshot[]>> {
  const bulk: DailySnapshot[] = [];
  for await (const [id, rows] of snapshotsByWorkspace(t.ctx, [workspaceId])) {
    expect(id).toBe(workspaceId);
    bulk.push(...rows);
  }
  return {
    rows: await loadSnapshots(t.db, workspaceId),
    packed: await loadSnapshotsForScoring(t.db, workspaceId),
    bulk,
  };
}

describe('metric snapshot codecs', () => {
  it('the metric_snapshots table has exactly the catalogued metric columns, types and defaults', async () => {
    const { rows } = await sql<{
      column_name: string;
      data_type: string;
      is_nullable: string;
      column_default: string | null;
    }>`SELECT column_name, data_type, is_nullable, column_default FROM information_schema.columns
       WHERE table_schema = current_schema() AND table_name = 'metric_snapshots'`.execute(t.db);
    const metrics = rows.filter(
      (r) => !['workspace_id', 'platform', 'day', 'source'].includes(r.column_name),
    );
    expect(metrics.map((r) => r.column_name).sort()).toEqual([...METRIC_COLUMNS].sort());
    for (const f of METRIC_FIELDS) {
      const column = metrics.find((r) => r.column_name === f.column)!;
      expect(column.data_type, f.column).toBe(f.sqlType);
      expect(column.is_nullable, f.column).toBe('NO');
      expect(column.column_default === null, f.column).toBe(f.required);
    }
  });

  it('values in METRIC_FIELDS order decode to the same snapshot', () => {
    const s = distinctSnapshot('2025-01-01', 0);
    const row = snapshotToRow(s);
    const packed = ['youtube', '2025-01-01', ...METRIC_COLUMNS.map((c) => row[c])];
    expect(snapshotFromValues('youtube', '2025-01-01', packed, 2)).toEqual(s);
    // COPY text: every value as its decimal text.
    expect(snapshotFromValues('youtube', '2025-01-01', packed.map(String), 2)).toEqual(s);
  });

  it('ingest -> database -> scoring reads (rows, packed JSON, bulk COPY) keep every metric', async () => {
    const ws = await createWorkspace(t.db, { name: 'Codec ingest', plan: 'pro' });
    const s = distinctSnapshot('2025-01-01', 1);
    await upsertSnapshots(t.db, [snapshotRow(ws.id, s, 'connector')]);
    const read = await readAll(ws.id);
    expect(read).toEqual({ rows: [s], packed: [s], bulk: [s] });
  });

  it('a CSV line and a JSON line import every metric column as written', async () => {
    const ws = await createWorkspace(t.db, { name: 'Codec import', plan: 'pro' });
    const a = distinctSnapshot('2025-01-02', 2);
    const b = distinctSnapshot('2025-01-03', 3);
    const csvLine = (s: DailySnapshot) => {
      const row = snapshotToRow(s);
      return [ws.id, s.platform, s.day, ...METRIC_COLUMNS.map((c) => row[c])].join(',');
    };
    const csv = [['workspace_id', 'platform', 'day', ...METRIC_COLUMNS].join(','), csvLine(a)].join('\n');
    const csvReport = await importMetrics(t.ctx, csv, 'csv');
    expect(csvReport).toMatchObject({ imported: 1, rejected: [], committed: true });
    const jsonl = JSON.stringify({ workspace_id: ws.id, ...snapshotToRow(b) });
    const jsonReport = await importMetrics(t.ctx, jsonl, 'jsonl');
    expect(jsonReport).toMatchObject({ imported: 1, rejected: [], committed: true });
    const read = await readAll(ws.id);
    expect(read).toEqual({ rows: [a, b], packed: [a, b], bulk: [a, b] });
  });

  it('the import rejects a value beyond its column type, naming the column', async () => {
    const ws = await createWorkspace(t.db, { name: 'Codec bounds', plan: 'pro' });
    for (const f of METRIC_FIELDS) {
      const row = snapshotToRow(distinctSnapshot('2025-01-04', 0));
      const tooBig =
        f.sqlType === 'integer'
          ? 2_147_483_648
          : f.sqlType === 'bigint'
            ? 2 ** 60
            : f.sqlType === 'text'
              ? 'model, with "quotes"'
              : 1.5;
      const line = JSON.stringify({ workspace_id: ws.id, ...row, [f.column]: tooBig });
      const report = await importMetrics(t.ctx, line, 'jsonl');
      expect(report.committed, f.column).toBe(false);
      expect(report.rejected[0]?.reason, f.column).toMatch(new RegExp(`^${f.column} must be`));
    }
  });

  it('the sandbox generator fills every metric column for every day', () => {
    const columns = emptyColumns();
    generateSnapshots(columns, 'ws_codec', 'instagram', brandProfile('codec', 0), '2025-01-31', 31);
    expect(columns.day).toHaveLength(31);
    for (const f of METRIC_FIELDS) {
      const values: unknown[] = columns[f.column];
      expect(values, f.column).toHaveLength(31);
      expect(
        values.every((v) =>
          f.sqlType === 'text'
            ? typeof v === 'string'
            : typeof v === 'number' && Number.isFinite(v) && v >= 0,
        ),
        f.column,
      ).toBe(true);
    }
  });
});

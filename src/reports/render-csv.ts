import type { Static } from 'typebox';
import { csvTable } from '../infra/http/csv.ts';
import type { ReportContent } from './content.ts';
import { ReportCsvRow } from './schemas.ts';

type Row = Static<typeof ReportCsvRow>;

/** The CSV of a report: one row per score, pillar, day, annotation, audit, recommendation, connection and phase. */
export const REPORT_CSV = csvTable(ReportCsvRow);

/** A signed delta ('+6.5') as a number, so a spreadsheet keeps it numeric. */
const num = (delta: string | null) => (delta === null ? null : Number(delta));

export function csvRows(content: ReportContent): Row[] {
  const rows: Row[] = [];
  for (const s of content.workspaces) {
    const base = { workspace_id: s.workspace_id, workspace: s.name };
    const row = (r: Partial<Row> & Pick<Row, 'section' | 'item'>) =>
      rows.push({ ...base, start: null, end: null, change: null, detail: '', ...r });
    row({
      section: 'score',
      item: 'composite',
      start: s.score.start,
      end: s.score.end,
      change: num(s.score.change),
    });
    for (const p of s.pillars)
      row({ section: 'pillar', item: p.pillar, start: p.start, end: p.end, change: num(p.change) });
    for (const h of s.history) row({ section: 'history', item: h.date, end: h.score });
    for (const a of s.annotations)
      row({ section: 'annotation', item: a.day, detail: `${a.category}: ${a.text}` });
    for (const a of s.audits) {
      row({
        section: 'audit',
        item: a.audit_id,
        end: a.score,
        detail: `${a.completed_at} ${a.grade ?? ''}`.trim(),
      });
      for (const r of a.recommendations) {
        row({
          section: 'recommendation',
          item: `${a.audit_id}#${r.priority}`,
          detail: `${r.pillar}: ${r.action} (${r.expected_impact})`,
        });
      }
    }
    for (const c of s.connections) {
      row({
        section: 'connection',
        item: c.platform,
        detail: `${c.handle} ${c.health}${c.reason ? ` (${c.reason})` : ''}`,
      });
    }
    for (const c of s.campaigns) {
      row({ section: 'campaign', item: c.name, detail: `${c.status} from ${c.start_date}` });
      for (const p of c.phases) {
        row({
          section: 'phase',
          item: `${c.name} / ${p.name}`,
          detail: `weeks ${p.weeks.join(' ')} ${p.status}`,
        });
      }
    }
  }
  return rows;
}

export function renderCsv(content: ReportContent): string {
  return REPORT_CSV.text(csvRows(content));
}

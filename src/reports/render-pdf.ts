/**
 * The report as PDF (pdfkit), drawn on the server: no browser. The score history chart is an ECharts
 * SVG rendered server-side (`renderer: 'svg', ssr: true`) and drawn with svg-to-pdfkit, so it stays
 * vector. Only the brand the content names appears (the agency's white label: name, logo, colours);
 * the document's metadata carries that name too.
 */
import PDFDocument from 'pdfkit';
import SVGtoPDF from 'svg-to-pdfkit';
import * as echarts from 'echarts';
import { addDays } from '../core/days.ts';
import type { ReportContent, WorkspaceSection } from './content.ts';

const PAGE = { size: 'A4' as const, margin: 48 };
const WIDTH = 595.28 - 2 * PAGE.margin;
const MUTED = '#555555';

export interface PdfLogo {
  data: Buffer;
}

const PILLAR_LABEL: Record<string, string> = {
  presence: 'Presence',
  reach: 'Reach',
  impact: 'Impact',
  sentiment: 'Sentiment',
  momentum: 'Momentum',
};

const show = (n: number | null) => (n === null ? 'n/a' : n.toFixed(1));

/**
 * The ECharts SVG of a section's daily scores over every day of the period (days without a stored
 * score are bridged), each annotation marked on its day.
 */
export function historyChartSvg(
  s: WorkspaceSection,
  period: { start: string; end: string },
  colors: { primary: string; accent: string },
): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 500, height: 220 });
  try {
    const days: string[] = [];
    for (let d = period.start; d <= period.end; d = addDays(d, 1)) days.push(d);
    const scores = new Map(s.history.map((p) => [p.date, p.score]));
    chart.setOption({
      animation: false,
      grid: { left: 40, right: 16, top: 24, bottom: 28 },
      xAxis: { type: 'category', data: days, axisLabel: { fontSize: 9 } },
      yAxis: { type: 'value', scale: true, axisLabel: { fontSize: 9 } },
      series: [
        {
          type: 'line',
          data: days.map((d) => scores.get(d) ?? null),
          connectNulls: true,
          lineStyle: { color: colors.primary, width: 2 },
          itemStyle: { color: colors.primary },
          symbolSize: 4,
          markLine: {
            symbol: 'none',
            lineStyle: { color: colors.accent, type: 'dashed' },
            // Numbered as in the list under the chart: neighbouring days' texts would overlap.
            label: { fontSize: 8, color: colors.accent, formatter: '{b}' },
            data: s.annotations.flatMap((a, i) =>
              days.includes(a.day) ? [{ xAxis: a.day, name: `${i + 1}` }] : [],
            ),
          },
        },
      ],
    });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

class Writer {
  readonly doc: PDFKit.PDFDocument;
  readonly content: ReportContent;

  constructor(doc: PDFKit.PDFDocument, content: ReportContent) {
    this.doc = doc;
    this.content = content;
  }

  ensure(height: number): void {
    if (this.doc.y + height > this.doc.page.height - PAGE.margin - 24) this.doc.addPage();
  }

  heading(text: string): void {
    this.ensure(40);
    this.doc.moveDown(0.6);
    this.doc
      .font('Helvetica-Bold')
      .fontSize(13)
      .fillColor(this.content.brand.primary_color)
      .text(text, PAGE.margin);
    this.doc.moveDown(0.2);
    this.doc.font('Helvetica').fontSize(10).fillColor('#000000');
  }

  line(text: string, options: { color?: string; bold?: boolean; indent?: number } = {}): void {
    this.ensure(14);
    this.doc
      .font(options.bold ? 'Helvetica-Bold' : 'Helvetica')
      .fontSize(10)
      .fillColor(options.color ?? '#000000')
      .text(text, PAGE.margin + (options.indent ?? 0), undefined, { width: WIDTH - (options.indent ?? 0) });
  }

  /** A simple table: fixed column widths, a bold header row. */
  table(columns: { title: string; width: number }[], rows: string[][]): void {
    const row = (cells: string[], bold: boolean) => {
      this.ensure(16);
      const y = this.doc.y;
      let x = PAGE.margin;
      this.doc
        .font(bold ? 'Helvetica-Bold' : 'Helvetica')
        .fontSize(9.5)
        .fillColor('#000000');
      cells.forEach((cell, i) => {
        this.doc.text(cell, x, y, { width: columns[i]!.width - 6, lineBreak: false, ellipsis: true });
        x += columns[i]!.width;
      });
      this.doc.x = PAGE.margin;
      this.doc.y = y + 15;
    };
    row(
      columns.map((c) => c.title),
      true,
    );
    for (const r of rows) row(r, false);
  }
}

function header(w: Writer, logo: PdfLogo | null): void {
  const { doc, content } = w;
  doc.rect(0, 0, doc.page.width, 86).fill(content.brand.primary_color);
  let x = PAGE.margin;
  if (logo) {
    try {
      doc.image(logo.data, PAGE.margin, 18, { fit: [120, 50] });
      x += 132;
    } catch {
      // A logo pdfkit cannot decode is left out; the name still brands the page.
    }
  }
  doc
    .font('Helvetica-Bold')
    .fontSize(20)
    .fillColor('#ffffff')
    .text(content.brand.name, x, 24, { width: WIDTH - (x - PAGE.margin) });
  doc
    .font('Helvetica')
    .fontSize(11)
    .fillColor('#ffffff')
    .text(`${content.title}: ${content.period.start} to ${content.period.end}`, x, 52, {
      width: WIDTH - (x - PAGE.margin),
    });
  doc.rect(0, 86, doc.page.width, 4).fill(content.brand.accent_color);
  doc.fillColor('#000000');
  doc.x = PAGE.margin;
  doc.y = 108;
}

function workspaceSection(w: Writer, s: WorkspaceSection): void {
  const { doc, content } = w;
  doc.font('Helvetica-Bold').fontSize(16).fillColor('#000000').text(s.name, PAGE.margin);
  doc.font('Helvetica').fontSize(9).fillColor(MUTED).text(`Workspace ${s.workspace_id}`);
  doc.moveDown(0.4);

  w.heading('Score');
  if (s.score.end === null) w.line('No stored score in this period.', { color: MUTED });
  else {
    w.line(
      `Score at the end of the period: ${show(s.score.end)} (${s.score.change} since ${content.period.start})`,
      {
        bold: true,
      },
    );
    w.line(`Score at the start of the period: ${show(s.score.start)}`);
  }

  w.heading('Pillars and drivers of change');
  const ranked = [...s.pillars].sort(
    (a, b) => Math.abs(Number(b.change ?? 0)) - Math.abs(Number(a.change ?? 0)),
  );
  w.table(
    [
      { title: 'Pillar', width: 160 },
      { title: 'Start', width: 100 },
      { title: 'End', width: 100 },
      { title: 'Change', width: 100 },
    ],
    ranked.map((p) => [PILLAR_LABEL[p.pillar] ?? p.pillar, show(p.start), show(p.end), p.change ?? 'n/a']),
  );
  doc.moveDown(0.3);
  w.line(content.drivers_note, { color: MUTED });

  w.heading('Score history');
  if (s.history.length === 0) w.line('No stored scores in this period.', { color: MUTED });
  else {
    w.ensure(230);
    const y = doc.y;
    SVGtoPDF(
      doc,
      historyChartSvg(s, content.period, {
        primary: content.brand.primary_color,
        accent: content.brand.accent_color,
      }),
      PAGE.margin,
      y,
      { width: WIDTH, height: (WIDTH * 220) / 500, assumePt: true },
    );
    doc.x = PAGE.margin;
    doc.y = y + (WIDTH * 220) / 500 + 6;
  }
  if (s.annotations.length) {
    w.line('Annotations', { bold: true });
    for (const [i, a] of s.annotations.entries())
      w.line(`${i + 1}.  ${a.day}  [${a.category}]  ${a.text}`, { indent: 10 });
  }

  w.heading('Audits and recommendations');
  if (s.audits.length === 0) w.line('No audit completed in this period.', { color: MUTED });
  for (const a of s.audits) {
    w.line(`Audit ${a.completed_at.slice(0, 10)}: score ${show(a.score)}${a.grade ? ` (${a.grade})` : ''}`, {
      bold: true,
    });
    for (const r of a.recommendations) {
      w.line(`${r.priority}. ${PILLAR_LABEL[r.pillar] ?? r.pillar}: ${r.action} (${r.expected_impact})`, {
        indent: 10,
      });
    }
  }

  w.heading('Connection health');
  if (s.connections.length === 0) w.line('No platform connected.', { color: MUTED });
  else {
    w.table(
      [
        { title: 'Platform', width: 90 },
        { title: 'Handle', width: 140 },
        { title: 'Health', width: 110 },
        { title: 'Last sync', width: 159 },
      ],
      s.connections.map((c) => [
        c.platform,
        c.handle,
        c.reason ? `${c.health} (${c.reason})` : c.health,
        c.last_sync ? c.last_sync.slice(0, 16).replace('T', ' ') : 'never',
      ]),
    );
  }

  w.heading('Campaigns');
  if (s.campaigns.length === 0) w.line('No campaign.', { color: MUTED });
  for (const c of s.campaigns) {
    w.line(
      `${c.name}: ${c.status}, from ${c.start_date}${c.current_phase ? `, now in ${c.current_phase}` : ''}`,
      {
        bold: true,
      },
    );
    w.line(
      c.phases
        .map((p) => `${p.name} (weeks ${p.weeks[0]}-${p.weeks[p.weeks.length - 1]}, ${p.status})`)
        .join('; '),
      { indent: 10 },
    );
  }
}

/** The whole report as a PDF. */
export async function renderPdf(content: ReportContent, logo: PdfLogo | null): Promise<Buffer> {
  const doc = new PDFDocument({
    size: PAGE.size,
    margin: PAGE.margin,
    bufferPages: true,
    info: {
      Title: `${content.title} ${content.period.start} to ${content.period.end}`,
      Author: content.brand.name,
      Creator: content.brand.name,
      Producer: content.brand.name,
      CreationDate: new Date(content.generated_at),
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });
  const w = new Writer(doc, content);
  header(w, logo);
  if (content.scope === 'all_clients') {
    doc.font('Helvetica-Bold').fontSize(16).text('All clients', PAGE.margin);
    w.heading('Overview');
    if (content.workspaces.length === 0) w.line('No client workspace.', { color: MUTED });
    else {
      w.table(
        [
          { title: 'Client', width: 220 },
          { title: 'Start', width: 90 },
          { title: 'End', width: 90 },
          { title: 'Change', width: 99 },
        ],
        content.workspaces.map((s) => [
          s.name,
          show(s.score.start),
          show(s.score.end),
          s.score.change ?? 'n/a',
        ]),
      );
    }
  }
  content.workspaces.forEach((s, i) => {
    if (content.scope === 'all_clients' || i > 0) {
      doc.addPage();
      doc.y = PAGE.margin;
    }
    workspaceSection(w, s);
  });
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc
      .font('Helvetica')
      .fontSize(8)
      .fillColor(MUTED)
      .text(`${content.brand.name}  |  page ${i + 1} of ${range.count}`, PAGE.margin, doc.page.height - 30, {
        width: WIDTH,
        align: 'center',
        lineBreak: false,
      });
    doc.page.margins.bottom = bottom;
  }
  doc.end();
  await done;
  return Buffer.concat(chunks);
}

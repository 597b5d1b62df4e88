import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReportJob, scheduleDueReports } from '../../src/reports/jobs.ts';
import { makeJpeg, makePng } from '../helpers/media.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { agencyWithClient } from './reports.fixtures.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';

let t: TestService;
let smtp: TestSmtpServer;
// Wednesday: the latest week that has ended is Monday 2030-01-14 to Sunday 2030-01-20.
const NOW = new Date('2030-01-23T09:00:00Z');
const PRODUCT = /brand.?health|imprs|pdfkit/i;

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await startTestService({}, { SMTP_URL: smtp.url, MAIL_FROM: 'Brand Health <reports@localhost>' });
  t.setNow(NOW);
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

async function pdfText(pdf: Buffer): Promise<string> {
  const doc = await getDocumentProxy(new Uint8Array(pdf));
  return (await extractText(doc, { mergePages: true })).text;
}

function brand(key: string, payload: Record<string, unknown>) {
  return t.request({ method: 'PUT', url: '/v1/reports/branding', key, payload });
}

function schedule(key: string, payload: Record<string, unknown>) {
  return t.request({ method: 'POST', url: '/v1/report-schedules', key, payload });
}

function generate(key: string, scheduleId: string, payload: Record<string, unknown> = {}) {
  return t.request({ method: 'POST', url: `/v1/report-schedules/${scheduleId}/generate`, key, payload });
}

/** Two job runs of the report at once, as two workers would take it. */
async function runTwice(reportId: string) {
  return Promise.all([
    runReportJob(t.ctx, { data: { reportId }, retryCount: 0 }),
    runReportJob(t.ctx, { data: { reportId }, retryCount: 0 }),
  ]);
}

describe('/v1/reports', () => {
  it("generates a white-labelled weekly report once, as PDF, JSON and CSV, and emails it in the agency's name", async () => {
    const { agency, client } = await agencyWithClient(t, 'Northwind');
    const logo = makePng(120, 40).toString('base64');
    const b = await brand(agency.key, {
      name: 'Northwind Partners',
      primary_color: '#0B5FFF',
      accent_color: '#ff8a00',
      logo_base64: logo,
    });
    expect(b.statusCode).toBe(200);
    expect(b.json()).toMatchObject({
      name: 'Northwind Partners',
      primary_color: '#0b5fff',
      logo: { content_type: 'image/png', width: 120, height: 40 },
    });
    const logoRes = await t.request({ method: 'GET', url: '/v1/reports/branding/logo', key: agency.key });
    expect(logoRes.headers['content-type']).toBe('image/png');
    expect(logoRes.rawPayload.equals(Buffer.from(logo, 'base64'))).toBe(true);

    const s = await schedule(agency.key, {
      workspace_id: client.workspace.id,
      cadence: 'weekly',
      recipients: ['CMO@client.example', 'cmo@client.example', 'ceo@client.example'],
    });
    expect(s.statusCode).toBe(201);
    expect(s.json()).toMatchObject({
      scope: 'workspace',
      workspace_id: client.workspace.id,
      recipients: ['cmo@client.example', 'ceo@client.example'],
    });
    const scheduleId = s.json().id;

    // Two "generate now" calls race: one claims the week, the other gets the same report.
    const [one, two] = await Promise.all([
      generate(agency.key, scheduleId),
      generate(agency.key, scheduleId),
    ]);
    expect([one.statusCode, two.statusCode].sort()).toEqual([200, 202]);
    expect(one.json().id).toBe(two.json().id);
    const report = one.json();
    expect(report).toMatchObject({ period_start: '2030-01-14', period_end: '2030-01-20', status: 'pending' });
    expectProblem(
      await t.request({ method: 'GET', url: `/v1/reports/${report.id}/pdf`, key: agency.key }),
      409,
    );

    // Two workers run it at once: one report, one event, one email.
    await runTwice(report.id);
    const reports = await t.db
      .selectFrom('reports')
      .selectAll()
      .where('schedule_id', '=', scheduleId)
      .execute();
    expect(reports).toHaveLength(1);
    const events = await t.db
      .selectFrom('events')
      .select('data')
      .where('type', '=', 'report.ready')
      .where('workspace_id', '=', agency.workspace.id)
      .execute();
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ report_id: report.id, period_start: '2030-01-14' });

    const json = (
      await t.request({ method: 'GET', url: `/v1/reports/${report.id}`, key: agency.key })
    ).json();
    expect(json.status).toBe('ready');
    expect(json.emailed_at).not.toBeNull();
    const section = json.content.workspaces[0];
    expect(json.content.brand).toMatchObject({ name: 'Northwind Partners', white_label: true });
    expect(section.score).toMatchObject({ start: 60, end: 66.5, change: '+6.5' });
    expect(section.pillars.find((p: { pillar: string }) => p.pillar === 'momentum')).toEqual({
      pillar: 'momentum',
      start: 70,
      end: 78,
      change: '+8.0',
    });
    expect(section.history.map((h: { date: string }) => h.date)).toEqual([
      '2030-01-14',
      '2030-01-17',
      '2030-01-20',
    ]);

    const pdf = await t.request({ method: 'GET', url: `/v1/reports/${report.id}/pdf`, key: agency.key });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await pdfText(pdf.rawPayload);
    for (const expected of [
      'Northwind Partners',
      'Northwind Coffee',
      '2030-01-14 to 2030-01-20',
      '66.5',
      '+6.5',
      'Momentum',
      '+8.0',
      'Winter menu launch',
      'Post three reels a week',
      '+4.2 points on reach',
      '@northwindcoffee',
      'Winter launch',
      'Foundation',
      'Build',
      'Drivers of change',
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).not.toMatch(PRODUCT);
    expect(pdf.rawPayload.toString('latin1')).not.toMatch(PRODUCT);

    const negotiated = await t.request({
      method: 'GET',
      url: `/v1/reports/${report.id}`,
      key: agency.key,
      headers: { accept: 'application/pdf' },
    });
    expect(negotiated.headers['content-type']).toBe('application/pdf');
    expect(negotiated.rawPayload.equals(pdf.rawPayload)).toBe(true);
    const csv = await t.request({
      method: 'GET',
      url: `/v1/reports/${report.id}`,
      key: agency.key,
      headers: { accept: 'text/csv' },
    });
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.body).toContain('Northwind Coffee,score,composite,60,66.5,6.5,');
    expect(csv.body).toContain('Northwind Coffee,pillar,sentiment,65,64,-1,');
    expect(csv.body).toContain('Winter menu launch');

    const mail = await smtp.waitFor((m) => m.envelope.to.includes('cmo@client.example'));
    expect(smtp.received.filter((m) => m.envelope.to.includes('cmo@client.example'))).toHaveLength(1);
    expect(mail.envelope.to.sort()).toEqual(['ceo@client.example', 'cmo@client.example']);
    expect(mail.parsed.from?.value[0]).toMatchObject({
      name: 'Northwind Partners',
      address: 'reports@localhost',
    });
    expect(mail.parsed.subject).toBe('Northwind Partners: Weekly brand report, 2030-01-14 to 2030-01-20');
    expect(mail.parsed.text).toContain('Northwind Coffee: 66.5 (+6.5)');
    expect(mail.parsed.attachments.map((a) => a.contentType).sort()).toEqual(['application/pdf', 'text/csv']);
    expect(mail.raw.toString('latin1')).not.toMatch(PRODUCT);

    const list = await t.request({
      method: 'GET',
      url: `/v1/reports?schedule_id=${scheduleId}`,
      key: agency.key,
    });
    expect(list.json()).toMatchObject({ total: 1, reports: [{ id: report.id, status: 'ready' }] });
  });

  it('reports across all clients, and the scheduler claims each closed period once', async () => {
    const { agency } = await agencyWithClient(t, 'Harbour');
    const s = await schedule(agency.key, {
      scope: 'all_clients',
      cadence: 'weekly',
      recipients: ['ops@harbour.example'],
    });
    expect(s.json()).toMatchObject({ scope: 'all_clients', workspace_id: agency.workspace.id });
    const r = await generate(agency.key, s.json().id, { period: '2030-01-16' });
    expect(r.statusCode).toBe(202);
    await runReportJob(t.ctx, { data: { reportId: r.json().id }, retryCount: 0 });
    const pdf = await t.request({ method: 'GET', url: `/v1/reports/${r.json().id}/pdf`, key: agency.key });
    const text = await pdfText(pdf.rawPayload);
    // Without a white label the report carries the default name.
    expect(text).toContain('All clients');
    expect(text).toContain('Harbour Coffee');
    expect(text).toContain('66.5');

    // Created during the week of 01-21: its first scheduled report is of that week, once.
    const before = await scheduleDueReports(t.ctx);
    expect(before).toBe(0);
    t.setNow(new Date('2030-01-28T01:07:00Z'));
    try {
      expect(await scheduleDueReports(t.ctx)).toBeGreaterThanOrEqual(1);
      expect(await scheduleDueReports(t.ctx)).toBe(0);
      const periods = await t.db
        .selectFrom('reports')
        .select('period_start')
        .where('schedule_id', '=', s.json().id)
        .orderBy('period_start')
        .execute();
      expect(periods.map((p) => p.period_start)).toEqual(['2030-01-14', '2030-01-21']);
    } finally {
      t.setNow(NOW);
    }
  });

  it('refuses bad input with problems, and keeps tenants apart', async () => {
    const { agency, client } = await agencyWithClient(t, 'Quartz');
    const other = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' });
    const pro = await workspaceWithKey(t.db, { plan: 'pro' });
    const ok = { name: 'Quartz', primary_color: '#000000', accent_color: '#ffffff' };
    expectProblem(await brand(agency.key, { ...ok, primary_color: 'red' }), 400);
    expectProblem(
      await brand(agency.key, { ...ok, logo_base64: Buffer.from('GIF89a-not-allowed').toString('base64') }),
      422,
      'Invalid Logo',
    );
    expectProblem(
      await brand(agency.key, {
        ...ok,
        logo_base64: Buffer.from('<svg></svg> hello there').toString('base64'),
      }),
      422,
      'Invalid Logo',
    );
    expectProblem(
      await brand(agency.key, { ...ok, logo_base64: makePng(4, 4).toString('base64') }),
      422,
      'Invalid Logo',
    );
    expectProblem(
      await brand(agency.key, { ...ok, logo_base64: makePng(3000, 20).toString('base64') }),
      422,
      'Invalid Logo',
    );
    expectProblem(await brand(agency.key, { ...ok, logo_base64: '%%%not base64' }), 422, 'Invalid Logo');
    const big = Buffer.concat([makePng(64, 64), Buffer.alloc(300 * 1024)]).toString('base64');
    const tooBig = await brand(agency.key, { ...ok, logo_base64: big });
    expect([400, 413]).toContain(tooBig.statusCode);
    expect(
      (await brand(agency.key, { ...ok, logo_base64: makeJpeg(64, 32).toString('base64') })).json().logo,
    ).toMatchObject({
      content_type: 'image/jpeg',
      width: 64,
      height: 32,
    });
    expectProblem(await brand(pro.key, ok), 403, 'Plan Required');

    expectProblem(await schedule(agency.key, { cadence: 'daily', recipients: ['a@b.example'] }), 400);
    expectProblem(await schedule(agency.key, { cadence: 'weekly', recipients: ['not-an-email'] }), 400);
    expectProblem(await schedule(agency.key, { cadence: 'weekly', recipients: [] }), 400);
    expectProblem(
      await schedule(agency.key, {
        cadence: 'weekly',
        recipients: ['a@b.example'],
        workspace_id: other.workspace.id,
      }),
      404,
    );
    expectProblem(
      await schedule(agency.key, {
        scope: 'all_clients',
        cadence: 'weekly',
        recipients: ['a@b.example'],
        workspace_id: client.workspace.id,
      }),
      400,
    );
    const s = await schedule(agency.key, {
      workspace_id: client.workspace.id,
      cadence: 'monthly',
      recipients: ['a@b.example'],
    });
    const id = s.json().id;
    // The month of NOW has not ended.
    expectProblem(await generate(agency.key, id, { period: '2030-01-02' }), 400);
    expectProblem(await generate(agency.key, id, { period: '2030-02-30' }), 400);
    // No body: the latest month that has ended.
    const december = await t.request({
      method: 'POST',
      url: `/v1/report-schedules/${id}/generate`,
      key: agency.key,
    });
    expect(december.json()).toMatchObject({ period_start: '2029-12-01', period_end: '2029-12-31' });

    expectProblem(await generate(other.key, id), 404);
    expectProblem(
      await t.request({ method: 'GET', url: `/v1/reports/${december.json().id}`, key: other.key }),
      404,
    );
    expectProblem(await t.request({ method: 'GET', url: `/v1/report-schedules/${id}`, key: other.key }), 404);
    expect((await t.request({ method: 'GET', url: '/v1/reports', key: other.key })).json().total).toBe(0);

    const patched = await t.request({
      method: 'PATCH',
      url: `/v1/report-schedules/${id}`,
      key: agency.key,
      payload: { recipients: ['new@b.example'] },
    });
    expect(patched.json().recipients).toEqual(['new@b.example']);
    const del = await t.request({ method: 'DELETE', url: `/v1/report-schedules/${id}`, key: agency.key });
    expect(del.json()).toEqual({ id, deleted: true });
    expectProblem(
      await t.request({ method: 'GET', url: `/v1/report-schedules/${id}`, key: agency.key }),
      404,
    );
    // Reports of a deleted schedule stay readable.
    expect(
      (await t.request({ method: 'GET', url: `/v1/reports/${december.json().id}`, key: agency.key }))
        .statusCode,
    ).toBe(200);
  });
});

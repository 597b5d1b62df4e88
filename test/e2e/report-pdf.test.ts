import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReportJob } from '../../src/reports/jobs.ts';
import { agencyWithClient } from '../api/reports.fixtures.ts';
import { makePng } from '../helpers/media.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

// The first page of a white-labelled report as an image (Debian poppler's pdftoppm): the picture in
// docs/reports.md, rewritten only on request (UPDATE_SCREENSHOTS=1), so a test run leaves the tree clean.
const IMAGE =
  process.env.UPDATE_SCREENSHOTS === '1' ? 'docs/img/report-page-1.png' : '.tmp/report-page-1.png';

let t: TestService;

beforeAll(async () => {
  t = await startTestService();
  t.setNow(new Date('2030-01-23T09:00:00Z'));
});
afterAll(async () => t?.close());

describe('a report PDF', () => {
  it('renders its first page, with the chart, to PNG', async () => {
    const { agency, client } = await agencyWithClient(t, 'Lumen');
    await t.request({
      method: 'PUT',
      url: '/v1/reports/branding',
      key: agency.key,
      payload: {
        name: 'Lumen Partners',
        primary_color: '#14532d',
        accent_color: '#f59e0b',
        logo_base64: makePng(160, 48).toString('base64'),
      },
    });
    const s = await t.request({
      method: 'POST',
      url: '/v1/report-schedules',
      key: agency.key,
      payload: { workspace_id: client.workspace.id, cadence: 'weekly', recipients: ['cmo@lumen.example'] },
    });
    const r = await t.request({
      method: 'POST',
      url: `/v1/report-schedules/${s.json().id}/generate`,
      key: agency.key,
      payload: {},
    });
    await runReportJob(t.ctx, { data: { reportId: r.json().id }, retryCount: 0 });
    const pdf = await t.request({ method: 'GET', url: `/v1/reports/${r.json().id}/pdf`, key: agency.key });
    expect(pdf.statusCode).toBe(200);

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bh-report-'));
    fs.writeFileSync(path.join(dir, 'report.pdf'), pdf.rawPayload);
    execFileSync(
      'pdftoppm',
      ['-png', '-r', '72', '-f', '1', '-l', '1', '-singlefile', 'report.pdf', 'page'],
      {
        cwd: dir,
      },
    );
    const png = fs.readFileSync(path.join(dir, 'page.png'));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    // A4 (595.28 x 841.89 pt) at 72 dpi.
    expect(Math.abs(png.readUInt32BE(16) - 595)).toBeLessThanOrEqual(1);
    expect(Math.abs(png.readUInt32BE(20) - 842)).toBeLessThanOrEqual(1);
    fs.mkdirSync(path.dirname(IMAGE), { recursive: true });
    fs.copyFileSync(path.join(dir, 'page.png'), IMAGE);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

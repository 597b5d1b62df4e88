import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReportJob } from '../../src/reports/jobs.ts';
import { agencyWithClient } from '../api/reports.fixtures.ts';
import { makePng } from '../helpers/media.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

// Every page of a white-labelled report as an image (Debian poppler's pdftoppm): the pictures in
// docs/reports.md (report-page-N.png), rewritten only on request (UPDATE_SCREENSHOTS=1), so a test run
// leaves the tree clean.
const IMAGES = process.env.UPDATE_SCREENSHOTS === '1' ? 'docs/img' : '.tmp';

let t: TestService;

beforeAll(async () => {
  t = await startTestService();
  t.setNow(new Date('2030-01-23T09:00:00Z'));
});
afterAll(async () => t?.close());

describe('a report PDF', () => {
  it('renders every page, the chart on the first, to PNG', async () => {
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
    execFileSync('pdftoppm', ['-png', '-r', '72', 'report.pdf', 'page'], { cwd: dir });
    // pdftoppm numbers the pages page-1.png, page-2.png, ... (zero-padded to the page count's width).
    const pages = fs
      .readdirSync(dir)
      .filter((f) => /^page-\d+\.png$/.test(f))
      .sort((a, b) => Number(a.match(/\d+/)![0]) - Number(b.match(/\d+/)![0]));
    expect(pages.length).toBeGreaterThanOrEqual(1);
    fs.mkdirSync(IMAGES, { recursive: true });
    for (const [i, file] of pages.entries()) {
      const png = fs.readFileSync(path.join(dir, file));
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      // A4 (595.28 x 841.89 pt) at 72 dpi.
      expect(Math.abs(png.readUInt32BE(16) - 595)).toBeLessThanOrEqual(1);
      expect(Math.abs(png.readUInt32BE(20) - 842)).toBeLessThanOrEqual(1);
      fs.copyFileSync(path.join(dir, file), path.join(IMAGES, `report-page-${i + 1}.png`));
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

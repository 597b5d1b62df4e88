import { createBrandHealthClient, type BrandHealthClient } from '../../sdk/src/client.ts';
import { ProblemError, unwrap } from '../../sdk/src/problem.ts';

export { ProblemError, unwrap };
export type Client = BrandHealthClient;

/**
 * The API key lives in sessionStorage only: it goes to the API in the Authorization header, never in a
 * URL (routes are in the fragment and carry no key), a cookie or a log, and it is gone when the tab closes.
 */
const KEY_SLOT = 'bh.apiKey';

export function storedKey(): string | null {
  return sessionStorage.getItem(KEY_SLOT);
}
export function forgetKey(): void {
  sessionStorage.removeItem(KEY_SLOT);
}

export function makeClient(apiKey: string): Client {
  return createBrandHealthClient({ apiKey, baseUrl: location.origin });
}

export interface WorkspaceInfo {
  id: string;
  name: string;
  plan: string;
  platforms_connected: number;
  platform_limit: number | null;
  audits_used: number;
  audits_limit: number | null;
}

/** What the signed-in key may see, found by asking the API (never by parsing the key). */
export type Session =
  | { kind: 'workspace'; client: Client; workspace: WorkspaceInfo; agency: boolean }
  | { kind: 'tacsi'; client: Client }
  | { kind: 'limited'; client: Client; problem: ProblemError };

export async function signIn(apiKey: string): Promise<Session> {
  const client = makeClient(apiKey.trim());
  const ws = await client.GET('/v1/workspace');
  if (ws.response.ok) {
    const workspace = unwrap(ws);
    sessionStorage.setItem(KEY_SLOT, apiKey.trim());
    return { kind: 'workspace', client, workspace, agency: workspace.plan === 'agency' };
  }
  const problem = ProblemError.from(ws.error, ws.response);
  if (problem.status === 401) throw problem;
  // Not a workspace key the dashboard can use: a TACSI subscriber key answers the methodology feed.
  const tacsi = await client.GET('/v1/tacsi/methodology');
  sessionStorage.setItem(KEY_SLOT, apiKey.trim());
  if (tacsi.response.ok) return { kind: 'tacsi', client };
  return { kind: 'limited', client, problem };
}

/** The words shown for an API error: what happened and what to do, then the API's own detail. */
export function explain(error: unknown): { summary: string; detail: string; requestId?: string } {
  if (error instanceof ProblemError) {
    const detail = [error.detail, ...error.errors.map((e) => `${e.parameter}: ${e.message}`)]
      .filter(Boolean)
      .join(' ');
    const wait = error.retryAfterSeconds ? ` Try again in ${Math.ceil(error.retryAfterSeconds)} s.` : '';
    const summaries: Record<number, string> = {
      400: 'Some of what was entered is not valid.',
      401: 'This API key was not accepted: it may be mistyped, revoked or expired.',
      402: 'Your plan does not include this, or its allowance is used up.',
      403: 'This key is not allowed to do this.',
      404: 'Nothing was found here.',
      409: 'This conflicts with the current state.',
      413: 'What was sent is too large.',
      422: 'The request could not be processed as entered.',
      429: `Too many requests for now.${wait}`,
      503: `The service is busy or unavailable.${wait}`,
    };
    return {
      summary: summaries[error.status] ?? `The API answered ${error.status} ${error.title}.`,
      detail: detail || error.title,
      requestId: error.requestId,
    };
  }
  if (error instanceof TypeError) {
    return { summary: 'The service could not be reached. Check your connection and try again.', detail: '' };
  }
  return { summary: 'Something went wrong.', detail: error instanceof Error ? error.message : String(error) };
}

/**
 * A CSV export: asked for with `Accept: text/csv` and saved as a file. The key goes in the header; the
 * download is made from the response in memory (a blob URL), never from a URL carrying the key.
 */
export async function downloadCsv(apiKey: string, path: string, filename: string): Promise<void> {
  const response = await fetch(path, { headers: { Authorization: `Bearer ${apiKey}`, Accept: 'text/csv' } });
  if (!response.ok) {
    let body: unknown = null;
    try {
      body = await response.json();
    } catch {
      /* not JSON: the problem is made of the status */
    }
    throw ProblemError.from(body, response);
  }
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('text/csv')) {
    throw new Error(`The API answered ${type || 'no content type'} instead of CSV for this export.`);
  }
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export const PILLARS = ['presence', 'reach', 'impact', 'sentiment', 'momentum'] as const;
export type Pillar = (typeof PILLARS)[number];
export const PLATFORMS = ['instagram', 'tiktok', 'youtube', 'twitter', 'facebook'] as const;
export type Platform = (typeof PLATFORMS)[number];

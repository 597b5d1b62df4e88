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

const PLAN_NAMES: Record<string, string> = {
  free: 'Free',
  pro: 'Pro',
  agency: 'Agency',
  enterprise: 'Enterprise',
};

/**
 * What to do about a problem the API names, in people's words (its own detail speaks to programs: it
 * names endpoints and ids, so it is shown only under "Technical detail").
 */
function advice(error: ProblemError): string | undefined {
  const x = error.extensions;
  switch (error.title) {
    case 'Plan Required': {
      const plan = PLAN_NAMES[String(x.required_plan)];
      return plan
        ? `Your plan does not include this. The ${plan} plan${plan === 'Enterprise' ? '' : ' and above'} ${plan === 'Enterprise' ? 'does' : 'do'}.`
        : 'Your plan does not include this.';
    }
    case 'No Score Available':
      return 'There is no score yet: run an audit under Audits to get the first one.';
    case 'No Platforms Connected':
      return 'Connect a platform under Platforms first: an audit scores the connected accounts.';
    case 'Platform Not Connected':
      return 'That platform is not connected: connect it under Platforms first.';
    case 'Platform Limit Reached':
      return "Your plan's platforms are all in use: disconnect one under Platforms (Disconnect on its card), or move to a larger plan.";
    case 'Platform Already Connected':
      return 'That platform is connected already: to connect another account, disconnect it first under Platforms.';
    case 'Reauthorization Required':
    case 'Not Connected Through OAuth':
      return 'This connection has no sign-in to sync with: use Reconnect on its card, or disconnect it and connect it again.';
    case 'Audit In Progress':
      return 'An audit is already running for this workspace; its result shows under Audits when it is done.';
    case 'Audit Limit Reached':
      return `This month's audits are used up${x.resets_at ? `; more are available from ${new Date(String(x.resets_at)).toLocaleDateString()}` : ''}.`;
    case 'Sync Rate Limited':
      return 'This platform was synced a moment ago; try again shortly.';
    case 'Webhook Limit Reached':
      return "Your plan's webhooks are all in use: delete one under Webhooks first.";
    case 'Campaign Completed':
      return 'This campaign has ended and can no longer be changed.';
    case 'Platform Not Configured':
      return 'This service is not set up to connect that platform. Ask its operator.';
    default:
      return undefined;
  }
}

/** The words shown for an API error: what happened and what to do, then the API's own detail. */
export function explain(error: unknown): {
  summary: string;
  detail: string;
  technical?: string;
  requestId?: string;
} {
  if (error instanceof ProblemError) {
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
    const fields = error.errors.map((e) => `${e.parameter.replace(/_/g, ' ')} ${e.message}`).join(' ');
    const technical = [error.title, error.detail].filter(Boolean).join(': ');
    return {
      summary: summaries[error.status] ?? `The service could not do this (${error.title}).`,
      // Field errors are already in words; anything else gets advice, or the API's title alone.
      detail: advice(error) ?? (fields || (error.status === 401 ? '' : error.title)),
      technical,
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
  return downloadFile(apiKey, path, filename, 'text/csv', 'CSV');
}

/** A file of the given media type (a report's PDF, an export's CSV), saved as downloadCsv saves one. */
export async function downloadFile(
  apiKey: string,
  path: string,
  filename: string,
  mediaType: string,
  what: string,
): Promise<void> {
  const response = await fetch(path, { headers: { Authorization: `Bearer ${apiKey}`, Accept: mediaType } });
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
  if (!type.startsWith(mediaType)) {
    throw new Error(`The API answered ${type || 'no content type'} instead of ${what} for this download.`);
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

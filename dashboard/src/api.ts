import { createBrandHealthClient, type BrandHealthClient } from '../../sdk/src/client.ts';
import { ProblemError, unwrap } from '../../sdk/src/problem.ts';
import type { Ok } from '../../sdk/src/client.ts';
import { ROLE_ACTIONS, type Action, type Role } from '../../src/core/permissions.ts';
import { PLAN_LIMITS, type Plan } from '../../src/core/catalog.ts';

export { ProblemError, unwrap };
export type Client = BrandHealthClient;

/**
 * People sign in with a session: an HttpOnly cookie the dashboard never reads, plus the session's
 * CSRF token (kept in memory here, sent as X-CSRF-Token with every change) and the workspace they
 * act in (X-Workspace-Id; the last one chosen is remembered in this tab's sessionStorage). API keys
 * are for programs. The one exception is a TACSI subscriber: subscribers have keys and no people, so
 * the TACSI view still opens with a subscriber key, kept in sessionStorage only and sent in the
 * Authorization header, never in a URL, a cookie or a log.
 */
const KEY_SLOT = 'bh.apiKey';
const WORKSPACE_SLOT = 'bh.workspace';

export function storedKey(): string | null {
  return sessionStorage.getItem(KEY_SLOT);
}
export function forgetKey(): void {
  sessionStorage.removeItem(KEY_SLOT);
}

/** The headers that authenticate this tab's requests outside the client (downloads). */
let credentials: Record<string, string> = {};
export function authHeaders(): Record<string, string> {
  return credentials;
}

export interface WorkspaceInfo {
  id: string;
  name: string;
  plan: Plan;
  /** The plan's platforms (null: every platform), from the one plan table (src/core/catalog.ts). */
  platform_limit: number | null;
}

export type PersonInfo = Ok<'/v1/auth/session', 'get'>;
export type Membership = PersonInfo['workspaces'][number];

/** What the signed-in person (or the TACSI subscriber's key) may see, found by asking the API. */
export type Session =
  | {
      kind: 'workspace';
      client: Client;
      workspace: WorkspaceInfo;
      agency: boolean;
      person: PersonInfo['person'];
      role: Role;
      /** Every workspace the person is a member of (the switcher's list). */
      memberships: Membership[];
      /** The CSRF token of the session, for the calls made outside the client (passkeys, sign-out). */
      csrf: string;
      /** Whether the person's role in this workspace allows an action (src/core/permissions.ts). */
      can: (action: Action) => boolean;
    }
  | { kind: 'no-workspace'; person: PersonInfo['person']; csrf: string }
  | { kind: 'tacsi'; client: Client }
  | { kind: 'limited'; client: Client; problem: ProblemError };

/** The plain client of the sign-in endpoints: cookies only, no key, no workspace. */
const anonymous = createBrandHealthClient({ baseUrl: location.origin, idempotencyKeys: false });

/** The signed-in person of this browser's session cookie, or null when there is none. */
export async function currentSession(): Promise<PersonInfo | null> {
  const res = await anonymous.GET('/v1/auth/session');
  if (res.response.status === 401) return null;
  return unwrap(res);
}

/**
 * The dashboard's session for the signed-in person, acting in `workspaceId` (or the one chosen last
 * in this tab, or their first). Null when the browser has no session.
 */
export async function openSession(workspaceId?: string): Promise<Session | null> {
  const info = await currentSession();
  if (!info) return null;
  forgetKey();
  const wanted = workspaceId ?? sessionStorage.getItem(WORKSPACE_SLOT);
  const membership = info.workspaces.find((w) => w.id === wanted) ?? info.workspaces[0];
  if (!membership) return { kind: 'no-workspace', person: info.person, csrf: info.csrf_token };
  const csrf = info.csrf_token;
  credentials = { 'X-Workspace-Id': membership.id };
  const client = createBrandHealthClient({
    baseUrl: location.origin,
    headers: credentials,
    requestHeaders: (method): Record<string, string> =>
      method === 'GET' || method === 'HEAD' ? {} : { 'X-CSRF-Token': csrf },
    idempotencyKeys: false,
  });
  const plan = membership.plan as Plan;
  const workspace: WorkspaceInfo = {
    id: membership.id,
    name: membership.name,
    plan,
    platform_limit: PLAN_LIMITS[plan].platformLimit,
  };
  sessionStorage.setItem(WORKSPACE_SLOT, membership.id);
  const actions = ROLE_ACTIONS[membership.role];
  return {
    kind: 'workspace',
    client,
    workspace,
    agency: workspace.plan === 'agency',
    person: info.person,
    role: membership.role,
    memberships: info.workspaces,
    csrf,
    can: (action) => actions.has(action),
  };
}

/** Creates a workspace on the Free plan with the signed-in person as its owner. */
export async function createOwnWorkspace(name: string): Promise<{ id: string }> {
  const info = await currentSession();
  if (!info) throw new Error('Your session has ended: sign in again.');
  return unwrap(
    await anonymous.POST('/v1/auth/workspaces', {
      headers: { 'X-CSRF-Token': info.csrf_token },
      body: { name: name.trim() },
    }),
  );
}

/** Signs in with an email and password; the answer sets the session cookie. */
export async function signInWithPassword(email: string, password: string): Promise<Session> {
  unwrap(await anonymous.POST('/v1/auth/sign-in', { body: { email: email.trim(), password } }));
  const session = await openSession();
  if (!session) throw new Error('The sign-in did not hold: this browser may be refusing cookies.');
  return session;
}

/** Ends this browser's session, or (everywhere) every session of the person. */
export async function signOut(csrf: string | null, everywhere = false): Promise<void> {
  forgetKey();
  sessionStorage.removeItem(WORKSPACE_SLOT);
  credentials = {};
  if (csrf === null) return;
  const headers = { 'X-CSRF-Token': csrf };
  const res = everywhere
    ? await anonymous.POST('/v1/auth/sign-out-everywhere', { headers })
    : await anonymous.POST('/v1/auth/sign-out', { headers });
  // Already signed out (the session ended elsewhere) is the outcome wanted.
  if (res.response.status !== 401) unwrap(res);
}

/**
 * A TACSI subscriber's key: the TACSI view only. A workspace key is refused here in words, since
 * people sign in with their email (keys are for programs and the API reference).
 */
export async function signInWithSubscriberKey(apiKey: string): Promise<Session> {
  const key = apiKey.trim();
  const client = createBrandHealthClient({ apiKey: key, baseUrl: location.origin });
  const tacsi = await client.GET('/v1/tacsi/methodology');
  if (tacsi.response.ok) {
    sessionStorage.setItem(KEY_SLOT, key);
    credentials = { Authorization: `Bearer ${key}` };
    return { kind: 'tacsi', client };
  }
  const problem = ProblemError.from(tacsi.error, tacsi.response);
  if (problem.status === 401) throw problem;
  throw new NotASubscriberKey();
}

/** A key that works but is not a TACSI subscriber's. */
export class NotASubscriberKey extends Error {
  override readonly name = 'NotASubscriberKey';
  constructor() {
    super(
      'This is not a TACSI subscriber key. Brand teams sign in with their email above; API keys are for programs.',
    );
  }
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
    case 'Sign-In Failed':
      return /sign in first/i.test(error.detail ?? '')
        ? 'Your session has ended (signed out, or it timed out): sign in again.'
        : 'The email or password is not right, or the address is not confirmed yet (the confirmation email has a link).';
    case 'Too Many Sign-In Attempts':
      return 'Too many attempts to sign in: wait a few minutes, or reset the password by email.';
    case 'CSRF Token Missing Or Wrong':
      return 'Your session changed in another tab: reload the page and try again.';
    case 'Forbidden':
      return 'Your role in this workspace does not allow this: ask one of its owners or admins.';
    case 'Team Limit Reached':
      return "Your plan's team places are all taken: remove a member under Team, or move to a larger plan.";
    case 'Conflict':
      // The service's own sentence, when it is written for people (no address or raw id in it).
      return error.detail && !/\/v1\/|\b[a-z]{2,5}_[0-9A-Z]{26}\b/.test(error.detail)
        ? error.detail
        : undefined;
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
      401:
        error.title === 'Sign-In Failed'
          ? 'You are not signed in.'
          : 'This key was not accepted: it may be mistyped, revoked or expired.',
      402: 'Your plan does not include this, or its allowance is used up.',
      403: 'You are not allowed to do this here.',
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
 * A CSV export: asked for with `Accept: text/csv` and saved as a file. The credentials go in headers
 * (authHeaders); the download is made from the response in memory (a blob URL), never from a URL.
 */
export async function downloadCsv(path: string, filename: string): Promise<void> {
  return downloadFile(path, filename, 'text/csv', 'CSV');
}

/** A file of the given media type (a report's PDF, an export's CSV), saved as downloadCsv saves one. */
export async function downloadFile(
  path: string,
  filename: string,
  mediaType: string,
  what: string,
): Promise<void> {
  const response = await fetch(path, { headers: { ...authHeaders(), Accept: mediaType } });
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

import type { Platform } from '../src/core/catalog.ts';

/**
 * Connects a workspace's platforms the way a brand does, over HTTP against a running service:
 * POST /v1/platforms/{platform}/connect with the workspace's key, the platform's authorization URL
 * (the simulator consents at once and redirects), the service's callback (with the binding cookie the
 * connect answer set, as the browser that started it would send it), then an on-demand first
 * sync. A connection already there (the sandbox's handle-only ones, or OAuth ones whose tokens a
 * previous simulator issued) is disconnected first; its history stays. The account is the same
 * handle, passed to the simulator as `login_hint`.
 */
export interface LiveConnectOptions {
  /** The running service, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  key: string;
  workspaceId?: string;
  fetch?: typeof fetch;
}

export interface LiveConnectResult {
  platform: Platform;
  handle: string;
  /** connected and first sync queued, or what went wrong (the demo goes on with the others). */
  outcome: 'connected' | { error: string };
}

interface ListedPlatform {
  name: Platform;
  status: string;
  handle: string;
}

export async function connectThroughConsent(options: LiveConnectOptions): Promise<LiveConnectResult[]> {
  const http = options.fetch ?? fetch;
  const base = options.baseUrl.replace(/\/+$/, '');
  const query = options.workspaceId ? `?workspace_id=${encodeURIComponent(options.workspaceId)}` : '';
  /** The cookie the last connect set: the flow completes only for the "browser" that started it. */
  let binding = '';
  const call = async (method: string, path: string, expected: number[]) => {
    const res = await http(`${base}${path}${query}`, {
      method,
      headers: { authorization: `Bearer ${options.key}` },
    });
    const set = res.headers.get('set-cookie');
    if (set) binding = set.split(';')[0] ?? '';
    const body = (await res.json().catch(() => null)) as Record<string, any> | null;
    if (!expected.includes(res.status))
      throw new Error(`${method} ${path}: ${res.status} ${body?.title ?? ''} ${body?.detail ?? ''}`.trim());
    return body ?? {};
  };

  const listed = (await call('GET', '/v1/platforms', [200])).platforms as ListedPlatform[];
  const results: LiveConnectResult[] = [];
  for (const item of listed.filter((p) => p.status !== 'disconnected')) {
    const { name: platform } = item;
    const handle = item.handle.replace(/^@/, '').toLowerCase();
    try {
      await call('DELETE', `/v1/platforms/${platform}`, [200]);
      const started = await call('POST', `/v1/platforms/${platform}/connect`, [200]);
      const authorize = new URL(String(started.authorization_url));
      authorize.searchParams.set('login_hint', handle);
      const consent = await http(authorize, { redirect: 'manual' });
      const location = consent.headers.get('location');
      if (consent.status !== 302 || !location)
        throw new Error(`the authorization server answered ${consent.status} without a redirect`);
      // The redirect goes to the service's callback; followed on the service we talk to.
      const back = new URL(location);
      const done = await http(`${base}${back.pathname}${back.search}`, { headers: { cookie: binding } });
      const answer = (await done.json().catch(() => null)) as Record<string, any> | null;
      if (done.status !== 200) throw new Error(`callback: ${done.status} ${answer?.title ?? ''}`.trim());
      if (answer?.status === 'pending_selection') {
        // The account is also connected to another workspace (or the login gave several): the sandbox's
        // own account is picked, sharing confirmed.
        const own = (answer.accounts as Array<{ account_id: string; handle: string }>).find(
          (a) => a.handle.toLowerCase() === handle,
        );
        if (!own) throw new Error(`callback: the login did not offer ${handle}`);
        const picked = await http(`${base}/v1/platforms/${platform}/connect/${answer.id}/select`, {
          method: 'POST',
          headers: { authorization: `Bearer ${options.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ account_id: own.account_id, share: true }),
        });
        if (picked.status !== 200) throw new Error(`select: ${picked.status}`);
      }
      await call('POST', `/v1/platforms/${platform}/sync`, [202]);
      results.push({ platform, handle, outcome: 'connected' });
    } catch (error) {
      results.push({ platform, handle, outcome: { error: (error as Error).message } });
    }
  }
  return results;
}

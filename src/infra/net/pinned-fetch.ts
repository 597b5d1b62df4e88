import type { IncomingMessage } from 'node:http';
import { checkDestination, type DestinationPolicy } from './destination.ts';
import { outboundUrlProblem, pinnedRequest } from './pinned-request.ts';

export interface PinnedFetchOptions extends DestinationPolicy {
  /** Largest response body read; a longer one fails the request. */
  maxBytes?: number;
  /** Whole request deadline. */
  timeoutMs?: number;
}

export interface PinnedFetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string | URLSearchParams | Uint8Array | ArrayBuffer | null | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * A `fetch` for URLs a workspace supplies (an identity provider's endpoints): https only (http too
 * when loopback is allowed, for tests), the host checked by `checkDestination` (no private, link-local
 * or metadata address; loopback only when allowed) and the socket pinned to the checked address, no
 * redirects followed, a capped body and a deadline. Resolves to a standard `Response`.
 */
export async function pinnedFetch(
  input: string,
  init: PinnedFetchInit,
  options: PinnedFetchOptions = {},
): Promise<Response> {
  const url = new URL(input);
  const schemes = options.allowLoopback === true ? ['https:', 'http:'] : ['https:'];
  const problem = outboundUrlProblem(url, schemes);
  if (problem) throw new TypeError(`refused URL ${url.origin}: ${problem}`);
  const destination = await checkDestination(url.hostname, options);
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  const body =
    init.body === undefined || init.body === null
      ? undefined
      : init.body instanceof URLSearchParams
        ? Buffer.from(init.body.toString())
        : typeof init.body === 'string'
          ? Buffer.from(init.body)
          : Buffer.from(init.body instanceof ArrayBuffer ? new Uint8Array(init.body) : init.body);
  return new Promise<Response>((resolve, reject) => {
    const headers: Record<string, string> = { ...init.headers };
    if (body) headers['content-length'] = String(body.length);
    const request = pinnedRequest(url, destination, { method: init.method, headers }, (samePeer) => {
      if (!samePeer) request.destroy(new Error('connected to another address than the checked one'));
    });
    const timer = setTimeout(
      () => request.destroy(new Error('the request timed out')),
      options.timeoutMs ?? 10_000,
    );
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    init.signal?.addEventListener('abort', () => request.destroy(new Error('aborted')), { once: true });
    request.on('error', fail);
    request.on('response', (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) request.destroy(new Error(`the response is larger than ${maxBytes} bytes`));
        else chunks.push(chunk);
      });
      response.on('error', fail);
      response.on('end', () => {
        clearTimeout(timer);
        const out = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (Array.isArray(value)) for (const v of value) out.append(name, v);
          else if (value !== undefined) out.set(name, value);
        }
        const status = response.statusCode ?? 502;
        const nullBody = status === 204 || status === 304 || init.method === 'HEAD';
        resolve(new Response(nullBody ? null : Buffer.concat(chunks), { status, headers: out }));
      });
    });
    request.end(body);
  });
}

import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { LookupFunction, Socket } from 'node:net';
import { refusedAddressReason, refusedHostnameReason } from '../infra/net/address-policy.ts';
import { StudioError } from './errors.ts';

/**
 * GET of a caller-supplied media URL without letting the caller reach our own network
 * (SSRF). Every hop, redirects included, is checked and pinned:
 *  1. only http/https, no credentials in the URL, no internal host names;
 *  2. the name is resolved here and every address it resolves to must be public;
 *  3. the socket connects to that checked address through a lookup that ignores DNS, so a
 *     second, different answer (DNS rebinding) is never used; TLS still verifies the name;
 *  4. at most `maxRedirects` redirects, each going through 1-3 again;
 *  5. connect, headers and total deadlines; the body is capped by Content-Length and again
 *     while streaming, and reading stops as soon as the sink has what it needs.
 */

export interface FetchTimeouts {
  /** DNS resolution plus TCP (and TLS) connection, per hop. */
  connectMs: number;
  /** From connection to the response status line and headers, per hop. */
  headersMs: number;
  /** Whole fetch, all hops and the body included. */
  totalMs: number;
}

export const DEFAULT_TIMEOUTS: FetchTimeouts = { connectMs: 5_000, headersMs: 10_000, totalMs: 30_000 };
export const DEFAULT_MAX_MEDIA_BYTES = 100 * 1024 * 1024;
export const DEFAULT_MAX_REDIRECTS = 3;

export interface SafeFetchOptions {
  /** Permit 127.0.0.0/8 and ::1. Tests only; the app reads STUDIO_ALLOW_LOOPBACK_FETCH. */
  allowLoopback?: boolean;
  /** Body cap in bytes; default 100 MB. */
  maxBytes?: number;
  timeouts?: Partial<FetchTimeouts>;
  maxRedirects?: number;
  /** Host name to addresses; defaults to the system resolver. Lets tests play a DNS server. */
  resolve?: (hostname: string) => Promise<string[]>;
  /** PEM certificates trusted instead of the system roots. Tests only. */
  ca?: string;
}

/** Consumes the body as it arrives; returns true once it has everything it needs. */
export interface BodySink {
  write(chunk: Buffer): boolean;
}

export interface FetchOutcome {
  /** URL of the hop that returned the body. */
  url: string;
  /** Content-Length of the body, when the server declared one. */
  declaredBytes: number | null;
  bytesRead: number;
  /** True when the body was read to its end, false when the sink stopped early. */
  complete: boolean;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

async function systemResolve(hostname: string): Promise<string[]> {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => a.address);
}

function unreachable(detail: string): StudioError {
  return new StudioError('media_unreachable', detail);
}

function refused(detail: string): StudioError {
  return new StudioError('media_refused', detail);
}

function tooLarge(limit: number, detail: string): StudioError {
  return new StudioError(
    'content_too_large',
    `media is larger than ${limit.toLocaleString('en-US')} bytes (${detail})`,
  );
}

/** Rejects when `signal` aborts, so an uncancellable promise (DNS) cannot outlive a deadline. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

interface Target {
  url: URL;
  /** Bare host name or IP literal (no IPv6 brackets). */
  hostname: string;
  address: string;
}

/** Steps 1 and 2: the URL is acceptable and its host resolves only to public addresses. */
async function checkTarget(
  url: URL,
  options: SafeFetchOptions,
  timeouts: FetchTimeouts,
  signal: AbortSignal,
): Promise<Target> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw refused(`only http and https URLs are fetched, got ${url.protocol.replace(/:$/, '')}`);
  }
  if (url.username || url.password) throw refused('URLs with credentials are not fetched');
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const policy = { allowLoopback: options.allowLoopback === true };
  let addresses: string[];
  if (isIP(hostname)) {
    addresses = [hostname];
  } else {
    const nameReason = refusedHostnameReason(hostname, policy);
    if (nameReason) throw refused(nameReason);
    // Resolution counts against the connect deadline; a lookup cannot be cancelled, only abandoned.
    const dnsDeadline = new AbortController();
    const timer = setTimeout(
      () =>
        dnsDeadline.abort(unreachable(`timed out after ${timeouts.connectMs} ms resolving "${hostname}"`)),
      timeouts.connectMs,
    );
    try {
      addresses = await raceAbort(
        (options.resolve ?? systemResolve)(hostname),
        AbortSignal.any([signal, dnsDeadline.signal]),
      );
    } catch (error) {
      if (error instanceof StudioError) throw error;
      throw unreachable(`host "${hostname}" could not be resolved`);
    } finally {
      clearTimeout(timer);
    }
    if (addresses.length === 0) throw unreachable(`host "${hostname}" has no address`);
  }
  // Every answer must pass: a mixed public/private answer is a rebinding set-up.
  for (const address of addresses) {
    const reason = refusedAddressReason(address, policy);
    if (reason) {
      throw refused(
        isIP(hostname) ? `address is ${reason}` : `host "${hostname}" resolves to a ${reason} address`,
      );
    }
  }
  return { url, hostname, address: addresses[0] as string };
}

function pinnedLookup(address: string): LookupFunction {
  const family = isIP(address);
  return ((_hostname: string, opts: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (opts?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

interface Hop {
  response: IncomingMessage;
  /** Ends the request and its socket; safe to call more than once. */
  close: () => void;
}

/** Step 3: one GET to the pinned address, resolved when the headers arrive. */
function requestHop(
  target: Target,
  options: SafeFetchOptions,
  timeouts: FetchTimeouts,
  signal: AbortSignal,
): Promise<Hop> {
  return new Promise<Hop>((resolve, reject) => {
    const { url, hostname, address } = target;
    const secure = url.protocol === 'https:';
    const port = url.port ? Number(url.port) : secure ? 443 : 80;
    const request = (secure ? https : http).request({
      method: 'GET',
      host: hostname,
      port,
      path: `${url.pathname}${url.search}`,
      headers: {
        host: url.host,
        'user-agent': 'brand-health-studio/1 (+content scoring)',
        accept: 'image/*, video/*;q=0.9, */*;q=0.1',
        'accept-encoding': 'identity',
      },
      lookup: pinnedLookup(address),
      family: isIP(address),
      // A fresh agent per hop: no pooled socket can carry us to a previously resolved address,
      // and no environment proxy is used.
      agent: false,
      ...(secure && !isIP(hostname) ? { servername: hostname } : {}),
      ...(secure && options.ca ? { ca: options.ca } : {}),
    });
    let phase: 'connect' | 'headers' | 'body' = 'connect';
    let timer: NodeJS.Timeout | undefined;
    const arm = (ms: number, what: string) => {
      clearTimeout(timer);
      timer = setTimeout(() => fail(unreachable(`timed out after ${ms} ms waiting for ${what}`)), ms);
    };
    const close = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      request.destroy();
    };
    const fail = (error: StudioError) => {
      close();
      reject(error);
    };
    const onAbort = () => fail(signal.reason as StudioError);
    signal.addEventListener('abort', onAbort, { once: true });
    arm(timeouts.connectMs, `a connection to ${url.host}`);

    request.on('socket', (socket: Socket) => {
      const connected = () => {
        // The pin makes this unreachable; kept so a regression cannot silently reach another host.
        const peer = socket.remoteAddress?.replace(/^::ffff:(?=\d+\.)/, '');
        if (peer !== undefined && peer !== address.replace(/^::ffff:(?=\d+\.)/, '')) {
          fail(refused('connected to an address other than the checked one'));
          return;
        }
        phase = 'headers';
        arm(timeouts.headersMs, `response headers from ${url.host}`);
      };
      socket.once(secure ? 'secureConnect' : 'connect', connected);
    });
    request.on('response', (response) => {
      phase = 'body';
      clearTimeout(timer);
      resolve({ response, close });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (phase === 'body') return; // reported by the body reader
      const code = error.code ?? error.message;
      fail(
        phase === 'connect'
          ? unreachable(`could not connect to ${url.host} (${code})`)
          : unreachable(`connection to ${url.host} failed before a response (${code})`),
      );
    });
    request.end();
  });
}

/** Step 5: stream the body into the sink under the byte cap. */
function readBody(
  hop: Hop,
  sink: BodySink,
  maxBytes: number,
  url: string,
  signal: AbortSignal,
): Promise<FetchOutcome> {
  const { response, close } = hop;
  const header = response.headers['content-length'];
  const declared = header !== undefined && /^\d+$/.test(header) ? Number(header) : null;
  if (declared !== null && declared > maxBytes) {
    close();
    return Promise.reject(tooLarge(maxBytes, `Content-Length is ${declared.toLocaleString('en-US')}`));
  }
  return new Promise<FetchOutcome>((resolve, reject) => {
    let bytesRead = 0;
    let settled = false;
    const finish = (outcome: FetchOutcome | StudioError) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      close();
      if (outcome instanceof StudioError) reject(outcome);
      else resolve(outcome);
    };
    const onAbort = () => finish(signal.reason as StudioError);
    signal.addEventListener('abort', onAbort, { once: true });
    response.on('data', (chunk: Buffer) => {
      if (settled) return;
      bytesRead += chunk.length;
      if (bytesRead > maxBytes) {
        finish(tooLarge(maxBytes, `more than that was streamed`));
        return;
      }
      try {
        if (sink.write(chunk)) finish({ url, declaredBytes: declared, bytesRead, complete: false });
      } catch (error) {
        finish(error instanceof StudioError ? error : new StudioError('media_unsupported', String(error)));
      }
    });
    response.on('end', () => finish({ url, declaredBytes: declared, bytesRead, complete: true }));
    response.on('error', () => finish(unreachable('the connection broke while the media was downloading')));
    response.on('close', () => {
      if (!response.complete) finish(unreachable('the connection closed before the media was complete'));
    });
  });
}

export async function fetchMedia(
  rawUrl: string,
  sink: BodySink,
  options: SafeFetchOptions = {},
): Promise<FetchOutcome> {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_MEDIA_BYTES;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  let url: URL;
  try {
    url = new URL(rawUrl.trim());
  } catch {
    throw refused('content is not a valid URL');
  }
  const controller = new AbortController();
  const deadline = setTimeout(
    () => controller.abort(unreachable(`timed out after ${timeouts.totalMs} ms fetching the media`)),
    timeouts.totalMs,
  );
  try {
    for (let redirects = 0; ; redirects++) {
      const target = await checkTarget(url, options, timeouts, controller.signal);
      const hop = await requestHop(target, options, timeouts, controller.signal);
      const status = hop.response.statusCode ?? 0;
      if (REDIRECTS.has(status)) {
        const location = hop.response.headers.location;
        hop.close();
        if (redirects >= maxRedirects) throw refused(`more than ${maxRedirects} redirects`);
        if (!location) throw unreachable(`redirect ${status} without a Location header`);
        try {
          url = new URL(location, url);
        } catch {
          throw unreachable(`redirect to an invalid URL`);
        }
        continue;
      }
      if (status < 200 || status > 299) {
        hop.close();
        throw unreachable(`the media server answered ${status}`);
      }
      return await readBody(hop, sink, maxBytes, url.href, controller.signal);
    }
  } finally {
    clearTimeout(deadline);
  }
}

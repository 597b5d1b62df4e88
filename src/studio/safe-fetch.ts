import type { IncomingMessage } from 'node:http';
import { checkDestination, RefusedDestinationError } from '../infra/net/destination.ts';
import { isTlsFailure, outboundUrlProblem, pinnedRequest } from '../infra/net/pinned-request.ts';
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
/** What a probe may read in all, whatever the media's size: its header, or an MP4's moov. */
export const DEFAULT_PROBE_MAX_BYTES = 16 * 1024 * 1024;
/** The first request asks for this much; most headers and fast-start moov boxes fit. */
export const DEFAULT_FIRST_RANGE_BYTES = 256 * 1024;
/** Later ranges, e.g. the moov at the end of a file. */
export const DEFAULT_RANGE_CHUNK_BYTES = 1024 * 1024;
export const DEFAULT_MAX_REDIRECTS = 3;

export interface SafeFetchOptions {
  /** Permit 127.0.0.0/8 and ::1. Tests only; the app reads STUDIO_ALLOW_LOOPBACK_FETCH. */
  allowLoopback?: boolean;
  /** Largest media accepted (declared size); default 100 MB. */
  maxBytes?: number;
  /** Most bytes read to analyse it, all requests together; default 16 MB. */
  probeMaxBytes?: number;
  /** Length of the first ranged request; default 256 KB. */
  firstRangeBytes?: number;
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
  /**
   * When the server serves ranges: the file offset the sink needs next (it may skip ahead), or
   * null when more bytes would not help. Without it, reading is sequential.
   */
  nextOffset?(): number | null;
  /** The next bytes written start at this file offset (a new range). */
  seek?(offset: number): void;
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

/**
 * Steps 1 and 2: the URL is acceptable and its host resolves only to public addresses, through
 * the shared guard (src/infra/net), so studio and webhooks refuse the same things in the same words.
 */
async function checkTarget(
  url: URL,
  options: SafeFetchOptions,
  timeouts: FetchTimeouts,
  signal: AbortSignal,
): Promise<Target> {
  const problem = outboundUrlProblem(url, ['http:', 'https:']);
  if (problem === 'scheme')
    throw refused(`only http and https URLs are fetched, got ${url.protocol.replace(/:$/, '')}`);
  if (problem === 'credentials') throw refused('URLs with credentials are not fetched');
  if (problem === 'host') throw refused('the URL has no host');
  try {
    const checked = await raceAbort(
      checkDestination(url.hostname, {
        allowLoopback: options.allowLoopback === true,
        resolve: options.resolve,
        // Resolution counts against the connect deadline; a lookup cannot be cancelled, only abandoned.
        resolveTimeoutMs: timeouts.connectMs,
      }),
      signal,
    );
    return { url, hostname: checked.hostname, address: checked.address };
  } catch (error) {
    if (!(error instanceof RefusedDestinationError)) throw error;
    throw error.kind === 'refused' ? refused(error.message) : unreachable(error.message);
  }
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
  range: string | null,
): Promise<Hop> {
  return new Promise<Hop>((resolve, reject) => {
    const { url } = target;
    const request = pinnedRequest(
      url,
      target,
      {
        method: 'GET',
        headers: {
          'user-agent': 'brand-health-studio/1 (+content scoring)',
          accept: 'image/*, video/*;q=0.9, */*;q=0.1',
          'accept-encoding': 'identity',
          ...(range ? { range } : {}),
        },
        ca: options.ca,
      },
      (samePeer) => {
        if (!samePeer) {
          fail(refused('connected to an address other than the checked one'));
          return;
        }
        phase = 'headers';
        arm(timeouts.headersMs, `response headers from ${url.host}`);
      },
    );
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

    request.on('response', (response) => {
      phase = 'body';
      clearTimeout(timer);
      resolve({ response, close });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (phase === 'body') return; // reported by the body reader
      // The class of failure, not the socket's own words: those would describe the remote end.
      fail(
        isTlsFailure(error)
          ? unreachable(`the TLS certificate of ${url.host} could not be verified`)
          : phase === 'connect'
            ? unreachable(`could not connect to ${url.host}`)
            : unreachable(`the connection to ${url.host} failed before a response`),
      );
    });
    request.end();
  });
}

interface Served {
  hop: Hop;
  url: URL;
  status: number;
}

/** One GET (with its redirects, each hop checked and pinned again) up to a 2xx status line. */
async function get(
  start: URL,
  range: string | null,
  options: SafeFetchOptions,
  timeouts: FetchTimeouts,
  maxRedirects: number,
  signal: AbortSignal,
): Promise<Served> {
  let url = start;
  for (let redirects = 0; ; redirects++) {
    const target = await checkTarget(url, options, timeouts, signal);
    const hop = await requestHop(target, options, timeouts, signal, range);
    const status = hop.response.statusCode ?? 0;
    if (REDIRECTS.has(status)) {
      const location = hop.response.headers.location;
      hop.close();
      if (redirects >= maxRedirects) throw refused(`more than ${maxRedirects} redirects`);
      if (!location) throw unreachable('the media server redirected without a Location header');
      try {
        url = new URL(location, url);
      } catch {
        throw unreachable('the media server redirected to an invalid URL');
      }
      continue;
    }
    if (status === 416 && range !== null) {
      hop.close(); // an empty resource has no first byte to range over: ask for all of it
      return get(url, null, options, timeouts, maxRedirects - redirects, signal);
    }
    if (status < 200 || status > 299) {
      hop.close();
      // Whether it was 404, 401 or 500 is the remote server's business, not something we relay.
      throw unreachable('the media server did not return the media (an error status)');
    }
    return { hop, url, status };
  }
}

/** `Content-Range: bytes <first>-<last>/<total or *>` */
function contentRange(
  header: string | undefined,
): { first: number; last: number; total: number | null } | null {
  const match = header ? /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header.trim()) : null;
  if (!match) return null;
  return {
    first: Number(match[1]),
    last: Number(match[2]),
    total: match[3] === '*' ? null : Number(match[3]),
  };
}

function declaredLength(hop: Hop): number | null {
  const header = hop.response.headers['content-length'];
  return header !== undefined && /^\d+$/.test(header) ? Number(header) : null;
}

/**
 * Step 5: stream one body into the sink until the sink has what it needs, the body ends, or
 * `budget` bytes were read: the length of a range (`overBudget` null), or the probe's ceiling
 * on a whole body (`overBudget` says why that is an error).
 */
function readBody(
  hop: Hop,
  sink: BodySink,
  budget: number,
  overBudget: (() => StudioError) | null,
  signal: AbortSignal,
): Promise<{ bytesRead: number; done: boolean }> {
  const { response, close } = hop;
  return new Promise((resolve, reject) => {
    let bytesRead = 0;
    let settled = false;
    const finish = (outcome: { bytesRead: number; done: boolean } | StudioError) => {
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
      const room = budget - bytesRead;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      bytesRead += part.length;
      try {
        if (part.length && sink.write(part)) return finish({ bytesRead, done: true });
      } catch (error) {
        // A sink's own failures are StudioErrors with a class message; anything else is a parser
        // exception whose text may quote the fetched bytes or name internals: never shown.
        return finish(
          error instanceof StudioError
            ? error
            : new StudioError('media_unsupported', 'the media could not be parsed'),
        );
      }
      if (bytesRead >= budget) finish(overBudget ? overBudget() : { bytesRead, done: false });
    });
    response.on('end', () => finish({ bytesRead, done: false }));
    response.on('error', () => finish(unreachable('the connection broke while the media was downloading')));
    response.on('close', () => {
      if (!response.complete) finish(unreachable('the connection closed before the media was complete'));
    });
  });
}

/**
 * Fetches what the sink needs of a media URL, and no more. The first request asks for the first
 * `firstRangeBytes` with a Range header. A server that honours it (206) is asked again only for
 * the ranges the sink names (`nextOffset`: for an MP4 whose 'moov' follows a large 'mdat', the
 * bytes after the 'mdat', skipping the media data). A server that ignores it (200) is read from
 * the start until the sink is satisfied. Either way at most `probeMaxBytes` are read in all (16 MB
 * by default); a resource whose declared size is over `maxBytes` (100 MB) is refused unread.
 */
export async function fetchMedia(
  rawUrl: string,
  sink: BodySink,
  options: SafeFetchOptions = {},
): Promise<FetchOutcome> {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_MEDIA_BYTES;
  const probeMax = Math.min(options.probeMaxBytes ?? DEFAULT_PROBE_MAX_BYTES, maxBytes);
  const firstRange = Math.min(options.firstRangeBytes ?? DEFAULT_FIRST_RANGE_BYTES, probeMax);
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
  // At the size cap itself the media is too large; below it, the probe just did not find its data.
  const probeExceeded = () =>
    probeMax >= maxBytes
      ? tooLarge(maxBytes, 'more than that was streamed')
      : new StudioError(
          'media_unsupported',
          `what the analysis needs is not within the first ${(probeMax / 1024 / 1024).toLocaleString('en-US')} MB read ` +
            '(for a video: put its moov box first, "fast start", or serve it with range requests)',
        );
  try {
    const first = await get(
      url,
      `bytes=0-${firstRange - 1}`,
      options,
      timeouts,
      maxRedirects,
      controller.signal,
    );
    url = first.url;
    const ranged = first.status === 206 ? contentRange(first.hop.response.headers['content-range']) : null;
    if (first.status === 206 && (ranged === null || ranged.first !== 0)) {
      first.hop.close();
      throw unreachable('the media server answered a range request with a range it was not asked for');
    }
    const declared = ranged ? ranged.total : declaredLength(first.hop);
    if (declared !== null && declared > maxBytes) {
      first.hop.close();
      throw tooLarge(
        maxBytes,
        `${ranged ? 'its Content-Range total' : 'Content-Length'} is ${declared.toLocaleString('en-US')}`,
      );
    }
    const firstRead = ranged
      ? await readBody(first.hop, sink, Math.min(ranged.last + 1, probeMax), null, controller.signal)
      : await readBody(first.hop, sink, probeMax, probeExceeded, controller.signal);
    let bytesRead = firstRead.bytesRead;
    const outcome = (done: boolean): FetchOutcome => ({
      url: url.href,
      declaredBytes: declared,
      bytesRead,
      complete: !done,
    });
    if (firstRead.done || !ranged) return outcome(firstRead.done);

    // Ranged: ask for exactly what the sink says it needs next, within the probe's ceiling.
    for (;;) {
      const next = sink.nextOffset?.() ?? null;
      if (next === null || (declared !== null && next >= declared)) return outcome(false);
      if (bytesRead >= probeMax) throw probeExceeded();
      const length = Math.min(DEFAULT_RANGE_CHUNK_BYTES, probeMax - bytesRead);
      const part = await get(
        url,
        `bytes=${next}-${next + length - 1}`,
        options,
        timeouts,
        maxRedirects,
        controller.signal,
      );
      const range = part.status === 206 ? contentRange(part.hop.response.headers['content-range']) : null;
      if (range === null || range.first !== next) {
        part.hop.close();
        throw unreachable('the media server stopped honouring range requests');
      }
      sink.seek?.(next);
      const read = await readBody(
        part.hop,
        sink,
        Math.min(length, range.last - range.first + 1),
        null,
        controller.signal,
      );
      bytesRead += read.bytesRead;
      if (read.done) return outcome(true);
      if (read.bytesRead === 0) return outcome(false);
    }
  } finally {
    clearTimeout(deadline);
  }
}

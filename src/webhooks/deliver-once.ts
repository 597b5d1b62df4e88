import type { SecureContextOptions } from 'node:tls';
import { DomainError } from '../core/errors.ts';
import {
  checkDestination,
  RefusedDestinationError,
  type CheckedDestination,
  type Resolver,
} from '../infra/net/destination.ts';
import { isTlsFailure, pinnedRequest } from '../infra/net/pinned-request.ts';
import { signatureHeader } from './secrets.ts';
import { ATTEMPT_TIMEOUT_MS } from './settings.ts';
import { checkWebhookPort, parseWebhookUrl } from './url-policy.ts';

export interface OutgoingWebhook {
  url: string;
  /** `webhook-id`: the event id, the same on every attempt so receivers can drop duplicates. */
  msgId: string;
  /** The exact JSON body; it is what gets signed. */
  payload: string;
  /** Signing secrets; none means no `webhook-signature` header. */
  secrets: string[];
  /** `webhook-timestamp` (also signed). */
  timestamp: Date;
}

export interface DeliverOptions {
  allowLoopback?: boolean;
  resolve?: Resolver;
  /** Trusted CAs replacing the system roots (tests). */
  ca?: SecureContextOptions['ca'];
  /** Whole attempt, DNS to response headers; default 10 s. */
  timeoutMs?: number;
}

export interface DeliveryOutcome {
  /** 2xx */
  ok: boolean;
  statusCode: number | null;
  /**
   * What went wrong, for the delivery row (`last_error`, readable by the caller): never the URL, a
   * header or a secret, and one message for every failure before a status line (see NO_RESPONSE).
   */
  error: string | null;
  /** The precise cause of a failure before a status line (socket error code, TLS, timeout): never stored. */
  cause?: string;
  /** Retrying cannot help: an invalid URL, or 410 Gone. */
  permanent: boolean;
  durationMs: number;
}

const MAX_DRAINED_BYTES = 64 * 1024;

type PostResult = { statusCode: number } | { error: string };

/**
 * `last_error` of every failure before the receiver's status line. Refused, reset, unreachable,
 * TLS failure and timeout look the same to the caller: distinguishing them would let anyone who can
 * register a webhook probe third parties' ports and firewalls through this service.
 */
export const NO_RESPONSE = 'no response from the endpoint (connection, TLS or timeout)';

function describeSocketError(error: NodeJS.ErrnoException): string {
  const code = error.code ?? 'unknown error';
  if (isTlsFailure(error)) return `TLS handshake failed (${code})`;
  return `connection failed (${code})`;
}

/** One HTTPS POST to the checked address (pinnedRequest); resolves when the status line arrives. */
function post(
  url: URL,
  destination: CheckedDestination,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  ca: SecureContextOptions['ca'] | undefined,
  timeoutLabel: number,
): Promise<PostResult> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: PostResult) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    const request = pinnedRequest(
      url,
      destination,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, ca },
      (samePeer) => {
        if (samePeer) return;
        finish({ error: 'connected to an address other than the checked one' });
        request.destroy();
      },
    );
    const deadline = setTimeout(() => {
      finish({ error: `timed out after ${timeoutLabel} ms` });
      request.destroy();
    }, timeoutMs);
    request.on('response', (response) => {
      finish({ statusCode: response.statusCode ?? 0 });
      // The body is not used; read a little so a small answer completes cleanly, then hang up.
      let drained = 0;
      response.on('data', (chunk: Buffer) => {
        drained += chunk.length;
        if (drained > MAX_DRAINED_BYTES) request.destroy();
      });
      response.on('error', () => {});
      response.on('close', () => clearTimeout(deadline));
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(deadline);
      finish({ error: describeSocketError(error) });
    });
    request.on('close', () => clearTimeout(deadline));
    request.end(body);
  });
}

/**
 * One delivery attempt of a signed Standard Webhooks message: checks the URL, resolves the
 * host and checks every address again (DNS may have changed since registration), then POSTs
 * to the checked address. Redirects are not followed (a 3xx is a failure). Never throws for a
 * network or HTTP failure; the outcome says what happened.
 */
export async function deliverOnce(
  message: OutgoingWebhook,
  options: DeliverOptions = {},
): Promise<DeliveryOutcome> {
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const done = (outcome: Omit<DeliveryOutcome, 'durationMs'>): DeliveryOutcome => ({
    ...outcome,
    durationMs: Math.round(performance.now() - started),
  });

  let url: URL;
  try {
    url = parseWebhookUrl(message.url, { allowLoopback: options.allowLoopback ?? false });
  } catch (error) {
    // The domain error's own explanation: the job never reads an HTTP answer.
    const detail = error instanceof DomainError ? error.detail : 'the URL is invalid';
    return done({ ok: false, statusCode: null, error: detail, permanent: true });
  }
  let destination: CheckedDestination;
  try {
    destination = await checkDestination(url.hostname, {
      allowLoopback: options.allowLoopback,
      resolve: options.resolve,
      resolveTimeoutMs: timeoutMs,
    });
  } catch (error) {
    if (!(error instanceof RefusedDestinationError)) throw error;
    return done({ ok: false, statusCode: null, error: error.message, permanent: false });
  }
  try {
    // A webhook stored before ports were restricted is not delivered (nor retried).
    checkWebhookPort(url, { allowLoopback: options.allowLoopback ?? false });
  } catch (error) {
    return done({ ok: false, statusCode: null, error: (error as DomainError).detail, permanent: true });
  }

  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'brand-health-webhooks/1.0',
    'webhook-id': message.msgId,
    'webhook-timestamp': String(Math.floor(message.timestamp.getTime() / 1000)),
  };
  const signature = signatureHeader(message.secrets, message.msgId, message.timestamp, message.payload);
  if (signature) headers['webhook-signature'] = signature;

  const remaining = Math.max(1, timeoutMs - (performance.now() - started));
  const result = await post(url, destination, headers, message.payload, remaining, options.ca, timeoutMs);
  if ('error' in result)
    return done({ ok: false, statusCode: null, error: NO_RESPONSE, cause: result.error, permanent: false });
  const status = result.statusCode;
  if (status >= 200 && status <= 299)
    return done({ ok: true, statusCode: status, error: null, permanent: false });
  const note =
    status === 410 ? ' Gone' : status >= 300 && status <= 399 ? ' (redirects are not followed)' : '';
  return done({ ok: false, statusCode: status, error: `HTTP ${status}${note}`, permanent: status === 410 });
}

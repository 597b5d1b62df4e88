import { DomainError } from '../core/errors.ts';
import { checkDestination, RefusedDestinationError, type Resolver } from '../infra/net/destination.ts';
import { isLoopbackHost } from '../infra/net/address-policy.ts';
import { outboundUrlProblem } from '../infra/net/pinned-request.ts';

export const MAX_URL_LENGTH = 2048;

function invalid(detail: string, parameter: string): DomainError<'invalid_url'> {
  return new DomainError('invalid_url', detail, { parameter });
}

/**
 * The checks that need no network: an absolute https URL of at most 2048 characters, with a
 * host and without credentials. Returns the normalised URL (WHATWG: lower-case host, numeric
 * IPv4 forms such as `https://2130706433/` rewritten to dotted form, so they are judged right).
 * With `allowLoopback` (ALLOW_LOOPBACK_FETCH: tests and the local sandbox of `npm run demo`) a
 * loopback host may also be reached over plain http, so a receiver on the same machine needs no
 * certificate; every other host stays https only.
 */
export function parseWebhookUrl(
  raw: string,
  { parameter = 'url', allowLoopback = false }: { parameter?: string; allowLoopback?: boolean } = {},
): URL {
  const text = raw.trim();
  if (text.length === 0 || text.length > MAX_URL_LENGTH) {
    throw invalid(`${parameter} must be an https URL of 1 to ${MAX_URL_LENGTH} characters.`, parameter);
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(`${parameter} is not a valid absolute URL.`, parameter);
  }
  const problem = outboundUrlProblem(
    url,
    allowLoopback && isLoopbackHost(url.hostname) ? ['http:', 'https:'] : ['https:'],
  );
  if (problem === 'scheme')
    throw invalid(`${parameter} must use https, not ${url.protocol.replace(/:$/, '')}.`, parameter);
  if (problem === 'credentials')
    throw invalid(`${parameter} must not contain credentials (user:password@).`, parameter);
  if (problem === 'host') throw invalid(`${parameter} has no host.`, parameter);
  return url;
}

/**
 * The ports a webhook may use: HTTPS's own and its common alternate. Any other port on a public host
 * would make the service a port scanner of third parties
 * (docs/adr/0152-webhook-ports-and-connection-errors.md).
 */
export const WEBHOOK_PORTS: ReadonlySet<number> = new Set([443, 8443]);

/** Refuses a port outside WEBHOOK_PORTS, except where loopback delivery is allowed (tests, labs). */
export function checkWebhookPort(url: URL, options: { allowLoopback: boolean; parameter?: string }): void {
  const port = url.port === '' ? 443 : Number(url.port);
  if (WEBHOOK_PORTS.has(port) || options.allowLoopback) return;
  const parameter = options.parameter ?? 'url';
  throw invalid(
    `${parameter} uses port ${port}; webhooks are delivered only to port ${[...WEBHOOK_PORTS].join(' or ')}.`,
    parameter,
  );
}

export interface WebhookUrlOptions {
  /**
   * ctx.config.allowLoopbackFetch: accept loopback addresses and any port (tests and labs only).
   * Private ranges never pass.
   */
  allowLoopback: boolean;
  /** DNS resolver override (tests); the system resolver otherwise. */
  resolve?: Resolver;
  /** Name of the request field, for the error (`url`, `webhook_url`). */
  parameter?: string;
}

/**
 * Validates a caller-supplied webhook destination: `parseWebhookUrl`, then the host must
 * resolve, and only to public addresses (no loopback, private, link-local, CGNAT, cloud
 * metadata, multicast or reserved address, IPv4 or IPv6, IPv4-mapped included). Throws
 * `invalid_url` (400 Invalid URL) otherwise; returns the normalised URL string to store. Delivery checks
 * again (DNS can change), so this is the early answer to the caller, not the only guard.
 */
export async function validateWebhookUrl(raw: string, options: WebhookUrlOptions): Promise<string> {
  const parameter = options.parameter ?? 'url';
  const url = parseWebhookUrl(raw, { parameter, allowLoopback: options.allowLoopback });
  checkWebhookPort(url, { allowLoopback: options.allowLoopback, parameter });
  try {
    await checkDestination(url.hostname, { allowLoopback: options.allowLoopback, resolve: options.resolve });
  } catch (error) {
    if (!(error instanceof RefusedDestinationError)) throw error;
    throw invalid(
      `${parameter} is not deliverable: ${error.message}; webhooks are only delivered to public internet addresses.`,
      parameter,
    );
  }
  return url.href;
}

import http, { type ClientRequest, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP, type Socket } from 'node:net';
import type { SecureContextOptions } from 'node:tls';
import { pinnedLookup, type CheckedDestination } from './destination.ts';

/**
 * The syntax every outbound URL must have before its host is resolved: one of `schemes` (e.g.
 * `['https:']`), no credentials (user:password@), a host. Returns what is wrong, or null; each caller
 * words the refusal for its own audience (webhooks answer 400 Invalid URL, studio 422 Media URL Refused).
 */
export function outboundUrlProblem(
  url: URL,
  schemes: readonly string[],
): 'scheme' | 'credentials' | 'host' | null {
  if (!schemes.includes(url.protocol)) return 'scheme';
  if (url.username || url.password) return 'credentials';
  if (!url.hostname) return 'host';
  return null;
}

export interface PinnedRequestOptions {
  method: string;
  /** Request headers; `host` is set from the URL. */
  headers: OutgoingHttpHeaders;
  /** Trusted CAs replacing the system roots (tests); https only. */
  ca?: SecureContextOptions['ca'] | undefined;
}

/** An IPv4 address as a dual-stack socket reports it (`::ffff:203.0.113.7`), compared as IPv4. */
const V4_MAPPED = /^::ffff:(?=\d+\.)/;

/**
 * One HTTP(S) request to the address `checkDestination` approved, and to no other: the lookup is
 * pinned to it (never a second DNS answer), a fresh connection is opened (no pooled socket to an
 * earlier address, no environment proxy), and the TLS certificate is still verified against the
 * host name (SNI and identity check). When the connection is up (after the TLS handshake for
 * https) `onConnected` learns whether the peer is the checked address: the pin makes a mismatch
 * impossible, and the check keeps a regression from reaching another host. The caller ends the
 * request (`request.end(body)`) and handles its events.
 */
export function pinnedRequest(
  url: URL,
  destination: Pick<CheckedDestination, 'hostname' | 'address'>,
  options: PinnedRequestOptions,
  onConnected: (samePeer: boolean) => void,
): ClientRequest {
  const secure = url.protocol === 'https:';
  const { hostname, address } = destination;
  const request = (secure ? https : http).request({
    method: options.method,
    host: hostname,
    port: url.port ? Number(url.port) : secure ? 443 : 80,
    path: `${url.pathname}${url.search}`,
    headers: { ...options.headers, host: url.host },
    lookup: pinnedLookup(address),
    family: isIP(address),
    agent: false,
    ...(secure && !isIP(hostname) ? { servername: hostname } : {}),
    ...(secure && options.ca ? { ca: options.ca } : {}),
  });
  request.on('socket', (socket: Socket) => {
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      const peer = socket.remoteAddress?.replace(V4_MAPPED, '');
      onConnected(peer === undefined || peer === address.replace(V4_MAPPED, ''));
    });
  });
  return request;
}

/** True when a request failed in TLS (certificate, handshake), judged by the socket error's code. */
export function isTlsFailure(error: NodeJS.ErrnoException): boolean {
  return /CERT|SSL|TLS|SELF_SIGNED|ALTNAME|UNABLE_TO/i.test(error.code ?? '');
}

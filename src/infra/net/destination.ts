import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { type AddressPolicy, refusedAddressReason, refusedHostnameReason } from './address-policy.ts';

/** Host name to its addresses; injectable so tests can play a DNS server. */
export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => a.address);
};

export interface DestinationPolicy extends AddressPolicy {
  resolve?: Resolver;
  /** Deadline for the DNS answer; default 5 s. */
  resolveTimeoutMs?: number;
}

/**
 * Why a destination is not used: `refused` (decided from the URL alone: an internal name or a
 * non-public IP literal) or `unresolvable` (the name has no usable public address: no answer,
 * no answer in time, or only non-public answers). Every `unresolvable` case carries the same
 * message: saying what a name resolves to, or whether it resolves at all, would let a caller
 * map our internal DNS.
 */
export class RefusedDestinationError extends Error {
  readonly kind: 'refused' | 'unresolvable';
  constructor(kind: 'refused' | 'unresolvable', message: string) {
    super(message);
    this.kind = kind;
    this.name = 'RefusedDestinationError';
  }
}

export interface CheckedDestination {
  /** Bare host name or IP literal (no IPv6 brackets). */
  hostname: string;
  /** Every address the name resolved to, all of them allowed. */
  addresses: string[];
  /** The address to connect to: pin it with `pinnedLookup`. */
  address: string;
}

export function noPublicAddress(hostname: string): RefusedDestinationError {
  return new RefusedDestinationError('unresolvable', `host "${hostname}" has no public internet address`);
}

function withTimeout<T>(promise: Promise<T>, ms: number, error: Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(error), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/**
 * Resolves `hostname` (a URL's `hostname`) and checks every address it resolves to: a mixed
 * public and private answer is a DNS-rebinding set-up and is refused as a whole. Call it right
 * before connecting, then connect to the returned `address` through `pinnedLookup`, so the
 * socket cannot use a second, different DNS answer.
 */
export async function checkDestination(
  hostname: string,
  policy: DestinationPolicy = {},
): Promise<CheckedDestination> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (!bare) throw new RefusedDestinationError('refused', 'the URL has no host');
  let addresses: string[];
  if (isIP(bare)) {
    addresses = [bare];
  } else {
    const nameReason = refusedHostnameReason(bare, policy);
    if (nameReason) throw new RefusedDestinationError('refused', nameReason);
    try {
      addresses = await withTimeout(
        (policy.resolve ?? systemResolver)(bare),
        policy.resolveTimeoutMs ?? 5_000,
        noPublicAddress(bare),
      );
    } catch {
      throw noPublicAddress(bare);
    }
    if (addresses.length === 0) throw noPublicAddress(bare);
  }
  for (const address of addresses) {
    const reason = refusedAddressReason(address, policy);
    if (reason) {
      // A literal's class is what the caller wrote; a name's answers are ours and stay unsaid.
      throw isIP(bare)
        ? new RefusedDestinationError('refused', `host is a ${reason}`)
        : noPublicAddress(bare);
    }
  }
  return { hostname: bare, addresses, address: addresses[0] as string };
}

/** A `lookup` for http(s).request / net.connect that always answers the already checked address. */
export function pinnedLookup(address: string): LookupFunction {
  const family = isIP(address);
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

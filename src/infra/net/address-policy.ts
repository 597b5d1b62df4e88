import { isIP } from 'node:net';

/**
 * Which IP addresses outbound requests to caller-supplied URLs (webhooks, studio media) may
 * connect to. Only globally routable unicast addresses pass; the IANA special-purpose ranges
 * are refused, and IPv6 forms that carry an IPv4 address (IPv4-mapped, IPv4-compatible,
 * NAT64, 6to4) are judged by that IPv4 address, so `::ffff:169.254.169.254` is metadata.
 */

export type AddressCategory =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'metadata'
  | 'multicast'
  | 'unspecified'
  | 'documentation'
  | 'reserved';

export interface AddressClass {
  category: AddressCategory;
  /** The matching range in CIDR notation, e.g. `10.0.0.0/8`; the address family's whole space when public. */
  range: string;
  /** Set when an IPv6 address was judged by the IPv4 address it embeds. */
  via?: string;
}

interface Range {
  bytes: number[];
  bits: number;
  category: AddressCategory;
  cidr: string;
}

function v4(cidr: string, category: AddressCategory): Range {
  const [address, bits] = cidr.split('/') as [string, string];
  return { bytes: address.split('.').map(Number), bits: Number(bits), category, cidr };
}

function v6(cidr: string, category: AddressCategory): Range {
  const [address, bits] = cidr.split('/') as [string, string];
  return { bytes: [...(ipv6Bytes(address) as Uint8Array)], bits: Number(bits), category, cidr };
}

// First match wins: single cloud-metadata addresses come before the ranges that hold them.
const IPV4_RANGES: Range[] = [
  v4('169.254.169.254/32', 'metadata'), // AWS, GCP, Azure IMDS
  v4('168.63.129.16/32', 'metadata'), // Azure wire server (a public-looking address)
  v4('100.100.100.200/32', 'metadata'), // Alibaba Cloud
  v4('192.0.0.192/32', 'metadata'), // Oracle Cloud
  v4('0.0.0.0/8', 'unspecified'), // "this network": 0.0.0.0 reaches the local host on Linux
  v4('10.0.0.0/8', 'private'),
  v4('100.64.0.0/10', 'cgnat'),
  v4('127.0.0.0/8', 'loopback'),
  v4('169.254.0.0/16', 'link-local'),
  v4('172.16.0.0/12', 'private'),
  v4('192.0.0.0/24', 'reserved'), // IETF protocol assignments
  v4('192.0.2.0/24', 'documentation'),
  v4('192.88.99.0/24', 'reserved'), // 6to4 relay anycast
  v4('192.168.0.0/16', 'private'),
  v4('198.18.0.0/15', 'reserved'), // benchmarking
  v4('198.51.100.0/24', 'documentation'),
  v4('203.0.113.0/24', 'documentation'),
  v4('224.0.0.0/4', 'multicast'),
  v4('240.0.0.0/4', 'reserved'), // future use and 255.255.255.255 broadcast
];

// Ranges whose last 32 bits (or bytes 2-5 for 6to4) are an IPv4 address reached through them.
const EMBEDDING: Array<{ range: Range; offset: number }> = [
  { range: v6('::ffff:0:0/96', 'reserved'), offset: 12 }, // IPv4-mapped
  { range: v6('64:ff9b::/96', 'reserved'), offset: 12 }, // NAT64 well-known prefix
  { range: v6('2002::/16', 'reserved'), offset: 2 }, // 6to4
];

const IPV6_RANGES: Range[] = [
  v6('::/128', 'unspecified'),
  v6('::1/128', 'loopback'),
  v6('fd00:ec2::254/128', 'metadata'), // AWS IMDS over IPv6
  v6('::/96', 'reserved'), // IPv4-compatible, deprecated
  v6('64:ff9b:1::/48', 'private'), // local-use NAT64
  v6('100::/64', 'reserved'), // discard-only
  v6('2001:db8::/32', 'documentation'),
  v6('2001::/23', 'reserved'), // IETF protocol assignments, Teredo included
  v6('3fff::/20', 'documentation'),
  v6('fc00::/7', 'private'), // unique local
  v6('fe80::/10', 'link-local'),
  v6('fec0::/10', 'private'), // site-local, deprecated
  v6('ff00::/8', 'multicast'),
];

function matches(bytes: ArrayLike<number>, range: Range): boolean {
  let bits = range.bits;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((range.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** The 16 bytes of an IPv6 address (brackets and zone id ignored), or null when it is not one. */
export function ipv6Bytes(input: string): Uint8Array | null {
  const address = input.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIP(address) !== 6) return null;
  let text = address;
  // A dotted IPv4 tail (::ffff:1.2.3.4) becomes the last two 16-bit groups.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const groups = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const left = groups(head);
  const right = groups(tail);
  const words =
    tail === undefined
      ? left
      : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  if (words.length !== 8) return null;
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[2 * i] = w >> 8;
    bytes[2 * i + 1] = w & 0xff;
  });
  return bytes;
}

function classifyV4(bytes: ArrayLike<number>): AddressClass {
  const range = IPV4_RANGES.find((r) => matches(bytes, r));
  return range ? { category: range.category, range: range.cidr } : { category: 'public', range: '0.0.0.0/0' };
}

function classifyV6(bytes: Uint8Array): AddressClass {
  for (const { range, offset } of EMBEDDING) {
    if (matches(bytes, range)) return { ...classifyV4(bytes.subarray(offset, offset + 4)), via: range.cidr };
  }
  const range = IPV6_RANGES.find((r) => matches(bytes, r));
  if (range) return { category: range.category, range: range.cidr };
  // Only 2000::/3 is allocated as global unicast.
  if (((bytes[0] as number) & 0xe0) !== 0x20) return { category: 'reserved', range: 'outside 2000::/3' };
  return { category: 'public', range: '2000::/3' };
}

/** What kind of address `address` (IPv4, or IPv6 with or without brackets) is; null when it is not an IP address. */
export function classifyAddress(address: string): AddressClass | null {
  const bare = address.replace(/^\[|\]$/g, '');
  if (isIP(bare) === 4) return classifyV4(bare.split('.').map(Number));
  const bytes = ipv6Bytes(bare);
  return bytes ? classifyV6(bytes) : null;
}

export interface AddressPolicy {
  /** Permit loopback (127.0.0.0/8, ::1, ::ffff:127.x). For tests only; never other private ranges. */
  allowLoopback?: boolean;
}

const LABELS: Record<AddressCategory, string> = {
  public: 'public',
  loopback: 'loopback',
  private: 'private',
  'link-local': 'link-local',
  cgnat: 'carrier-grade NAT',
  metadata: 'cloud metadata',
  multicast: 'multicast',
  unspecified: 'unspecified',
  documentation: 'documentation',
  reserved: 'reserved',
};

/** A short phrase for messages: `private address (10.0.0.0/8)`. */
export function describeAddressClass(c: AddressClass): string {
  return `${LABELS[c.category]} address (${c.range}${c.via ? `, through ${c.via}` : ''})`;
}

/** Why connecting to `address` is refused, or null when allowed. Anything but an IP literal is refused. */
export function refusedAddressReason(address: string, policy: AddressPolicy = {}): string | null {
  const c = classifyAddress(address);
  if (!c) return 'not an IP address';
  if (c.category === 'public') return null;
  if (c.category === 'loopback' && policy.allowLoopback === true) return null;
  return describeAddressClass(c);
}

/** Whether `hostname` (a URL's host: a name, an IPv4 literal or a bracketed IPv6 literal) is this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const name = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  return classifyAddress(name)?.category === 'loopback';
}

const INTERNAL_NAMES = new Set([
  'metadata',
  'metadata.google.internal',
  'instance-data',
  'instance-data.ec2.internal',
]);
const INTERNAL_SUFFIXES = ['.internal', '.local', '.localdomain', '.home.arpa', '.intranet', '.lan', '.arpa'];

/**
 * Host names refused before any DNS lookup: loopback and cloud-metadata aliases, names under
 * suffixes that only exist inside a private network, and single-label names (resolved through
 * the search domains of our own network). The address check after resolution is the real
 * guard; this also stops split-horizon names whose private answer a resolver may cache.
 */
export function refusedHostnameReason(hostname: string, policy: AddressPolicy = {}): string | null {
  const name = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (isIP(name)) return null; // judged by address
  if (name === 'localhost' || name.endsWith('.localhost')) {
    return policy.allowLoopback === true ? null : `host name "${name}" is loopback`;
  }
  if (INTERNAL_NAMES.has(name)) return `host name "${name}" is a cloud metadata alias`;
  const suffix = INTERNAL_SUFFIXES.find((s) => name.endsWith(s));
  if (suffix) return `host names ending in "${suffix}" are internal`;
  if (!name.includes('.')) return `single-label host name "${name}" is internal`;
  return null;
}

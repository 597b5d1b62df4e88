import { isIP } from 'node:net';

/**
 * Which IP addresses the media fetcher may connect to. Only globally routable unicast
 * addresses pass; everything in the IANA special-purpose registries is refused, including
 * IPv6 forms that embed an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4), so
 * "::ffff:169.254.169.254" is judged as 169.254.169.254.
 */

interface Block {
  bytes: number[];
  bits: number;
  reason: string;
}

function v4(cidr: string, reason: string): Block {
  const [address, bits] = cidr.split('/') as [string, string];
  return { bytes: address.split('.').map(Number), bits: Number(bits), reason };
}

function v6(cidr: string, reason: string): Block {
  const [address, bits] = cidr.split('/') as [string, string];
  return { bytes: [...(parseIPv6(address) as Uint8Array)], bits: Number(bits), reason };
}

const LOOPBACK_V4 = v4('127.0.0.0/8', 'loopback');

const IPV4_BLOCKS: Block[] = [
  v4('0.0.0.0/8', '"this network" (0.0.0.0/8)'),
  v4('10.0.0.0/8', 'private (10.0.0.0/8)'),
  v4('100.64.0.0/10', 'carrier-grade NAT (100.64.0.0/10)'),
  v4('169.254.0.0/16', 'link-local (169.254.0.0/16, cloud metadata)'),
  v4('172.16.0.0/12', 'private (172.16.0.0/12)'),
  v4('192.0.0.0/24', 'IETF protocol assignments (192.0.0.0/24)'),
  v4('192.0.2.0/24', 'documentation (192.0.2.0/24)'),
  v4('192.88.99.0/24', '6to4 relay anycast (192.88.99.0/24)'),
  v4('192.168.0.0/16', 'private (192.168.0.0/16)'),
  v4('198.18.0.0/15', 'benchmarking (198.18.0.0/15)'),
  v4('198.51.100.0/24', 'documentation (198.51.100.0/24)'),
  v4('203.0.113.0/24', 'documentation (203.0.113.0/24)'),
  v4('224.0.0.0/4', 'multicast (224.0.0.0/4)'),
  v4('240.0.0.0/4', 'reserved (240.0.0.0/4, broadcast)'),
];

// Blocks inside 2000::/3 (global unicast); anything outside 2000::/3 is refused anyway.
const IPV6_BLOCKS: Block[] = [
  v6('2001::/23', 'IETF protocol assignments (2001::/23, Teredo)'),
  v6('2001:db8::/32', 'documentation (2001:db8::/32)'),
  v6('3fff::/20', 'documentation (3fff::/20)'),
];

function matches(bytes: ArrayLike<number>, block: Block): boolean {
  let bits = block.bits;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((block.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** 16 bytes of an IPv6 address (zone id ignored), or null when it is not one. */
export function parseIPv6(input: string): Uint8Array | null {
  const address = input.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIP(address) !== 6) return null;
  let text = address;
  const words: number[] = [];
  // A trailing dotted IPv4 part becomes the last two 16-bit words.
  const dotted = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    const [a, b, c, d] = (dotted[1] as string).split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -(dotted[1] as string).length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const part = (s: string | undefined) => (s ? s.split(':').map((w) => parseInt(w, 16)) : []);
  const left = part(head);
  const right = part(tail);
  words.push(
    ...left,
    ...new Array<number>(tail === undefined ? 0 : 8 - left.length - right.length).fill(0),
    ...right,
  );
  if (words.length !== 8) return null;
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[2 * i] = w >> 8;
    bytes[2 * i + 1] = w & 0xff;
  });
  return bytes;
}

function ipv4Reason(bytes: ArrayLike<number>, allowLoopback: boolean): string | null {
  if (matches(bytes, LOOPBACK_V4)) return allowLoopback ? null : 'loopback (127.0.0.0/8)';
  for (const block of IPV4_BLOCKS) if (matches(bytes, block)) return block.reason;
  return null;
}

function ipv6Reason(bytes: Uint8Array, allowLoopback: boolean): string | null {
  const prefixZero = (n: number) => bytes.subarray(0, n).every((b) => b === 0);
  const embedded = bytes.subarray(12, 16);
  if (prefixZero(15) && bytes[15] === 1) return allowLoopback ? null : 'loopback (::1)';
  if (prefixZero(16)) return 'unspecified address (::)';
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), 64:ff9b::a.b.c.d (NAT64) reach the IPv4 address.
  if (prefixZero(10) && bytes[10] === 0xff && bytes[11] === 0xff) return ipv4Reason(embedded, allowLoopback);
  if (prefixZero(12)) return ipv4Reason(embedded, allowLoopback) ?? 'IPv4-compatible address (::/96)';
  if (matches(bytes, { bytes: [0, 0x64, 0xff, 0x9b], bits: 96, reason: '' })) {
    return ipv4Reason(embedded, allowLoopback);
  }
  // 6to4 (2002::/16) carries the IPv4 address in bytes 2-5.
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return ipv4Reason(bytes.subarray(2, 6), allowLoopback);
  if (((bytes[0] as number) & 0xe0) !== 0x20) {
    if (((bytes[0] as number) & 0xfe) === 0xfc) return 'unique local (fc00::/7)';
    if (bytes[0] === 0xfe && ((bytes[1] as number) & 0xc0) === 0x80) return 'link-local (fe80::/10)';
    if (bytes[0] === 0xff) return 'multicast (ff00::/8)';
    return 'not global unicast (outside 2000::/3)';
  }
  for (const block of IPV6_BLOCKS) if (matches(bytes, block)) return block.reason;
  return null;
}

/**
 * Why connecting to `address` is refused, or null when it is a public address. Anything
 * that is not a literal IPv4 or IPv6 address is refused.
 */
export function refusedAddressReason(
  address: string,
  options: { allowLoopback?: boolean } = {},
): string | null {
  const allowLoopback = options.allowLoopback === true;
  const bare = address.replace(/^\[|\]$/g, '');
  if (isIP(bare) === 4) return ipv4Reason(bare.split('.').map(Number), allowLoopback);
  const bytes = parseIPv6(bare);
  if (bytes) return ipv6Reason(bytes, allowLoopback);
  return 'not an IP address';
}

const BLOCKED_HOSTNAMES = new Set(['metadata', 'metadata.google.internal', 'instance-data', 'localhost']);
const BLOCKED_SUFFIXES = [
  '.internal',
  '.local',
  '.localhost',
  '.localdomain',
  '.home.arpa',
  '.intranet',
  '.lan',
];

/**
 * Host names refused before any DNS lookup: cloud metadata aliases and names that only
 * resolve inside a private network. The address check after resolution is the real guard;
 * this catches split-horizon names whose private answer a resolver might cache.
 */
export function refusedHostnameReason(
  hostname: string,
  options: { allowLoopback?: boolean } = {},
): string | null {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (options.allowLoopback && (name === 'localhost' || name.endsWith('.localhost'))) return null;
  if (BLOCKED_HOSTNAMES.has(name)) return `host name "${name}" is internal`;
  const suffix = BLOCKED_SUFFIXES.find((s) => name.endsWith(s));
  if (suffix) return `host names ending in "${suffix}" are internal`;
  return null;
}

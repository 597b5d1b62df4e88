import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  classifyAddress,
  ipv6Bytes,
  refusedAddressReason,
  refusedHostnameReason,
} from '../../src/infra/net/address-policy.ts';

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['100.128.0.1', 'public'],
    ['169.254.169.254', 'metadata'],
    ['169.254.1.1', 'link-local'],
    ['168.63.129.16', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['192.0.2.10', 'documentation'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['[::1]', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fd00:ec2::254', 'metadata'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['2001:0:4136:e378::1', 'reserved'], // Teredo
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['2002:7f00:1::', 'loopback'], // 6to4 of 127.0.0.1
    ['::10.0.0.1', 'reserved'], // IPv4-compatible, deprecated
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001:80b::200e', 'public'],
    ['4000::1', 'reserved'],
  ])('%s is %s', (address, category) => {
    expect(classifyAddress(address)?.category).toBe(category);
  });

  it('is null for anything but an IP literal', () => {
    for (const s of ['example.com', '', '1.2.3', '256.1.1.1', '::g', 'localhost']) {
      expect(classifyAddress(s)).toBeNull();
    }
  });

  it('judges an IPv4 address and every IPv6 form that reaches it alike', () => {
    fc.assert(
      fc.property(fc.ipV4(), (v4) => {
        const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
        const hex = `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
        const expected = classifyAddress(v4)!.category;
        expect(classifyAddress(`::ffff:${v4}`)!.category).toBe(expected);
        expect(classifyAddress(`::ffff:${hex}`)!.category).toBe(expected);
        expect(classifyAddress(`64:ff9b::${hex}`)!.category).toBe(expected);
        expect(classifyAddress(`2002:${hex}::1`)!.category).toBe(expected);
      }),
    );
  });
});

describe('ipv6Bytes', () => {
  it('reads back every address in the forms the URL parser writes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (bytes) => {
        const groups: string[] = [];
        for (let i = 0; i < 16; i += 2)
          groups.push((((bytes[i] as number) << 8) | (bytes[i + 1] as number)).toString(16));
        const compressed = new URL(`http://[${groups.join(':')}]/`).hostname;
        expect([...(ipv6Bytes(compressed) ?? [])]).toEqual([...bytes]);
      }),
    );
  });

  it('refuses malformed input', () => {
    expect(ipv6Bytes('1:2:3')).toBeNull();
    expect(ipv6Bytes('10.0.0.1')).toBeNull();
  });
});

describe('refusedAddressReason', () => {
  it('names the range of a refused address and lets public ones pass', () => {
    expect(refusedAddressReason('10.1.2.3')).toBe('private address (10.0.0.0/8)');
    expect(refusedAddressReason('::ffff:169.254.169.254')).toBe(
      'cloud metadata address (169.254.169.254/32, through ::ffff:0:0/96)',
    );
    expect(refusedAddressReason('93.184.216.34')).toBeNull();
    expect(refusedAddressReason('not-an-ip')).toBe('not an IP address');
  });

  it('lets loopback through only when allowed, and nothing else private', () => {
    const allow = { allowLoopback: true };
    expect(refusedAddressReason('127.0.0.1')).toMatch(/^loopback/);
    expect(refusedAddressReason('127.0.0.1', allow)).toBeNull();
    expect(refusedAddressReason('::1', allow)).toBeNull();
    expect(refusedAddressReason('::ffff:127.0.0.1', allow)).toBeNull();
    expect(refusedAddressReason('0.0.0.0', allow)).toMatch(/^unspecified/);
    expect(refusedAddressReason('10.0.0.1', allow)).toMatch(/^private/);
    expect(refusedAddressReason('169.254.169.254', allow)).toMatch(/^cloud metadata/);
  });
});

describe('refusedHostnameReason', () => {
  it('refuses internal names before any lookup', () => {
    expect(refusedHostnameReason('localhost')).toMatch(/loopback/);
    expect(refusedHostnameReason('api.localhost.')).toMatch(/loopback/);
    expect(refusedHostnameReason('metadata.google.internal')).toMatch(/metadata/);
    expect(refusedHostnameReason('printer.local')).toMatch(/\.local/);
    expect(refusedHostnameReason('router.home.arpa')).toMatch(/\.arpa/);
    expect(refusedHostnameReason('intranet')).toMatch(/single-label/);
  });

  it('passes public names and IP literals (judged by address), and localhost only when allowed', () => {
    expect(refusedHostnameReason('hooks.example.com')).toBeNull();
    expect(refusedHostnameReason('10.0.0.1')).toBeNull();
    expect(refusedHostnameReason('[::1]')).toBeNull();
    expect(refusedHostnameReason('localhost', { allowLoopback: true })).toBeNull();
    expect(refusedHostnameReason('metadata', { allowLoopback: true })).toMatch(/metadata/);
  });
});

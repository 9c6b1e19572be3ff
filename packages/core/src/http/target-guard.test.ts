import type { LookupAddress } from 'node:dns';
import { BlockedTargetError, guardedLookup, isBlockedAddress, isBlockedLiteralHost } from './target-guard.js';

describe('isBlockedAddress', () => {
  it.each([
    ['IPv4 loopback', '127.0.0.1'],
    ['IPv4 loopback, top of 127/8', '127.255.255.254'],
    ['IPv4 unspecified', '0.0.0.0'],
    ['10/8', '10.0.0.1'],
    ['10/8, top', '10.255.255.255'],
    ['172.16/12, lower edge', '172.16.0.0'],
    ['172.16/12, upper edge', '172.31.255.255'],
    ['192.168/16', '192.168.1.1'],
    ['link-local cloud metadata', '169.254.169.254'],
    ['CGNAT, low', '100.64.0.1'],
    ['CGNAT, high', '100.127.255.254'],
    ['IPv4 multicast', '224.0.0.1'],
    ['IPv4 broadcast', '255.255.255.255'],
    ['IPv6 loopback', '::1'],
    ['IPv6 unspecified', '::'],
    ['IPv6 link-local', 'fe80::1'],
    ['IPv6 unique-local fc00::/7 (fc)', 'fc00::1'],
    ['IPv6 unique-local fc00::/7 (fd)', 'fd12::1'],
    ['IPv6 multicast', 'ff02::1'],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
    ['IPv4-mapped 10/8', '::ffff:10.0.0.1'],
    ['IPv4-mapped loopback, hex spelling', '::ffff:7f00:1'],
    ['something that is not an address', 'not-an-ip'],
    // Only public unicast (2000::/3) passes on IPv6; each of these is outside it or special inside it.
    ['IPv4-compatible loopback, dotted', '::127.0.0.1'],
    ['IPv4-compatible loopback, hex', '::7f00:1'],
    ['IPv4-compatible public address, dotted', '::8.8.8.8'],
    ['IPv4-compatible public address, hex', '::808:808'],
    ['IPv4-translated loopback', '::ffff:0:127.0.0.1'],
    ['NAT64 loopback', '64:ff9b::7f00:1'],
    ['NAT64 local-use prefix', '64:ff9b:1::a00:1'],
    ['the discard prefix', '100::1'],
    ['deprecated site-local', 'fec0::1'],
    ['unassigned 4000::/2', '4000::1'],
    ['unassigned e000::/4', 'e000::1'],
    ['unassigned low space', '1::'],
    ['6to4 wrapping loopback', '2002:7f00:1::1'],
    ['Teredo', '2001::1'],
    ['documentation prefix', '2001:db8::1'],
    ['documentation prefix 3fff::/20', '3fff::1'],
    ['link-local with a zone', 'fe80::1%eth0'],
    ['IPv4 in a short form', '127.1'],
  ])('refuses %s (%s)', (_what, address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each([
    ['just above 172.16/12', '172.32.0.1'],
    ['just below 172.16/12', '172.15.255.255'],
    ['just above CGNAT', '100.128.0.1'],
    ['just below CGNAT', '100.63.255.255'],
    ['Google DNS', '8.8.8.8'],
    ['Cloudflare DNS', '1.1.1.1'],
    ['Cloudflare DNS over IPv6', '2606:4700:4700::1111'],
    ['a public address mapped into IPv6', '::ffff:8.8.8.8'],
    ['Google DNS over IPv6', '2001:4860:4860::8888'],
    ['a public IPv6 address in full', '2a00:1450:4001:0829:0000:0000:0000:200e'],
  ])('allows %s (%s)', (_what, address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });
});

describe('isBlockedLiteralHost', () => {
  it.each([
    ['localhost', 'http://localhost/'],
    ['localhost in capitals with a port', 'http://LOCALHOST:8080'],
    ['a .localhost subdomain', 'http://foo.localhost/'],
    ['localhost as a fully qualified name (trailing dot)', 'http://localhost./'],
    ['a .localhost subdomain with a trailing dot', 'http://foo.localhost./'],
    ['dotted IPv4 loopback', 'http://127.0.0.1/'],
    ['decimal IPv4 loopback', 'http://2130706433/'],
    ['octal IPv4 loopback', 'http://0177.0.0.1/'],
    ['hex IPv4 loopback', 'http://0x7f.0.0.1/'],
    ['short IPv4 loopback', 'http://127.1/'],
    ['IPv6 loopback', 'http://[::1]/'],
    ['IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]/'],
    ['IPv4-compatible IPv6 loopback', 'http://[::127.0.0.1]/'],
    ['IPv4-compatible IPv6 public address', 'http://[::8.8.8.8]/'],
    ['NAT64 loopback', 'http://[64:ff9b::127.0.0.1]/'],
    ['an IPv6 address outside 2000::/3', 'http://[4000::1]/'],
    ['cloud metadata', 'http://169.254.169.254/latest/meta-data'],
    ['a private address on https with a port', 'https://10.1.2.3:8443/x'],
    ['a string that is not a URL', 'not a url'],
  ])('refuses %s (%s)', (_what, url) => {
    expect(isBlockedLiteralHost(url)).toBe(true);
  });

  it.each([
    ['a public name', 'https://example.com/'],
    ['a public address', 'http://8.8.8.8/'],
    ['a public IPv6 address', 'http://[2606:4700:4700::1111]/'],
    ['a name that merely contains localhost', 'https://localhost.example.com/'],
    ['a name ending in -localhost', 'https://my-localhost/'],
  ])('allows %s (%s)', (_what, url) => {
    expect(isBlockedLiteralHost(url)).toBe(false);
  });
});

type LookupResult = { error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };

function lookup(hostname: string, options: Parameters<typeof guardedLookup>[1]): Promise<LookupResult> {
  return new Promise((resolve) => guardedLookup(hostname, options, (error, address, family) => resolve({ error, address, family })));
}

describe('guardedLookup', () => {
  it('refuses a name that resolves to a loopback address', async () => {
    const result = await lookup('localhost', {});
    expect(result.error).toBeInstanceOf(BlockedTargetError);
    expect((result.error as BlockedTargetError).code).toBe('BLOCKED_TARGET');
    // Which private address the name has is not told: that would map the service's network.
    expect(result.error!.message).toBe('localhost does not resolve to a public address');
  });

  it('refuses a name that resolves to a loopback address when every address is asked for', async () => {
    const result = await lookup('localhost', { all: true });
    expect(result.error).toBeInstanceOf(BlockedTargetError);
    expect(result.address).toEqual([]);
  });

  it('answers a public address in the shape the caller asked for', async () => {
    // dns.lookup answers an address literal without asking a resolver, so this needs no network.
    expect(await lookup('8.8.8.8', {})).toEqual({ error: null, address: '8.8.8.8', family: 4 });
    expect(await lookup('8.8.8.8', { all: true })).toEqual({ error: null, address: [{ address: '8.8.8.8', family: 4 }], family: undefined });
  });

  it('passes a DNS failure through untouched, not as a blocked target', async () => {
    const result = await lookup('no-such-host.invalid', {});
    expect(result.error).not.toBeNull();
    expect(result.error).not.toBeInstanceOf(BlockedTargetError);
    expect(result.error!.code).toMatch(/^(ENOTFOUND|EAI_AGAIN|EAI_FAIL|EAI_NODATA)$/);
  });
});

import ipaddr from 'ipaddr.js';
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';

// Everything but public unicast: loopback, RFC 1918, link-local (cloud metadata at
// 169.254.169.254 included), CGNAT, unique-local, multicast, unspecified and reserved ranges.
const ALLOWED_RANGE = 'unicast';

/** True when the address is not a public unicast address (DECISIONS D5). */
export function isBlockedAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() !== ALLOWED_RANGE;
}

/**
 * Hosts that are refused without a DNS lookup: `localhost` names and literal addresses
 * (in any spelling the URL parser accepts, decimal and octal IPv4 included) outside public unicast.
 */
export function isBlockedLiteralHost(url: string): boolean {
  let host: string;
  try {
    // A trailing dot only marks the name as fully qualified: `localhost.` is still localhost.
    host = new URL(url).hostname.toLowerCase().replace(/\.+$/, '');
  } catch {
    return true;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  return ipaddr.isValid(bare) && isBlockedAddress(bare);
}

export class BlockedTargetError extends Error {
  readonly code = 'BLOCKED_TARGET';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A drop-in for dns.lookup that refuses blocked addresses. The socket connects to exactly the
 * address checked here, so a name that resolves differently a second time (DNS rebinding) cannot slip past.
 */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const list = addresses as LookupAddress[];
    const blocked = list.find((a) => isBlockedAddress(a.address));
    if (blocked) return callback(new BlockedTargetError(`${hostname} resolves to ${blocked.address}, which is not a public address`), []);
    if (options.all) return callback(null, list);
    return callback(null, list[0].address, list[0].family);
  });
}

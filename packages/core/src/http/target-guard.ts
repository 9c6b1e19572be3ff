import ipaddr from 'ipaddr.js';
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';

// Everything but public unicast: loopback, RFC 1918, link-local (cloud metadata at
// 169.254.169.254 included), CGNAT, unique-local, multicast, unspecified and reserved ranges.
const ALLOWED_RANGE = 'unicast';
// IPv6 public unicast is allocated from 2000::/3 only; ipaddr.js calls everything it has no
// name for "unicast", IPv4-compatible (::a.b.c.d) and unassigned space included.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * The address as ipaddr.js sees it, or null when it is not one. IPv6 goes through the WHATWG
 * serializer first: ipaddr.js reads "::127.0.0.1" (IPv4-compatible, as inet_ntop prints it) as
 * the IPv4-mapped "::ffff:127.0.0.1", while the URL parser writes it as the "::7f00:1" it is.
 */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const family = isIP(address);
  if (family === 4) return ipaddr.IPv4.parse(address);
  if (family !== 6 || !URL.canParse(`http://[${address}]/`)) return null;
  return ipaddr.IPv6.parse(new URL(`http://[${address}]/`).hostname.slice(1, -1));
}

/** True when the address is not a public unicast address (docs/SECURITY.md, "Target guard"). */
export function isBlockedAddress(address: string): boolean {
  const parsed = parseAddress(address);
  if (parsed === null) return true;
  if (parsed.kind() === 'ipv4') return parsed.range() !== ALLOWED_RANGE;
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() !== ALLOWED_RANGE;
  return v6.range() !== ALLOWED_RANGE || !v6.match(GLOBAL_UNICAST_V6);
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
  return isIP(bare) !== 0 && isBlockedAddress(bare);
}

/** The save-time refusal of a private target, with the setting that lifts it for local development. */
export const PRIVATE_TARGET_MESSAGE =
  'must be a publicly reachable address (loopback, private and link-local hosts are refused; ALLOW_PRIVATE_TARGETS=true allows them on a development service)';

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
    // The address is not named: which private address an internal name has is what a tenant
    // probing the service's network would like to learn.
    if (blocked) return callback(new BlockedTargetError(`${hostname} does not resolve to a public address`), []);
    if (options.all) return callback(null, list);
    return callback(null, list[0].address, list[0].family);
  });
}

import ipaddr from 'ipaddr.js';
import type { SqlPool } from '../db/client.js';
import { hashToken } from '../ids/ids.js';

/**
 * PUBLIC_RATE_LIMIT_PER_MINUTE (docs/API.md, "Quotas and rate limits"): requests to a public endpoint
 * (trigger, resume, approval, ping) are counted per token, by the token's hash, never the token;
 * requests with a token the service does not know are counted per client address instead, so
 * made-up tokens cannot each open a window of their own. The counts live in the store of
 * RATE_LIMIT_PER_MINUTE (rate-limit.ts), apart from its API-token counts.
 */

/** The network a client address counts for: the address itself for IPv4, its /64 for IPv6 (what one host usually holds). */
export function clientNetwork(remoteAddress: string | undefined): string {
  if (!remoteAddress || !ipaddr.isValid(remoteAddress)) return 'unknown';
  const address = ipaddr.process(remoteAddress);
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(':')}::/64`;
}

/** What a public request is counted under: its token's hash when the token is known, else its client's network. */
export function publicRateLimitKey(token: string, known: boolean, remoteAddress: string | undefined): string {
  return known ? `public-token:${hashToken(token)}` : `public-address:${clientNetwork(remoteAddress)}`;
}

/**
 * Deletes windows that ended a while ago from the Postgres store (Redis keys expire by
 * themselves): client addresses come and go, so without this the table would only grow.
 */
export async function pruneRateLimitWindows(deps: { pool: SqlPool }): Promise<number> {
  const { rowCount } = await deps.pool.query(`DELETE FROM rate_limit_windows WHERE window_ends_at < now() - interval '1 minute'`);
  return rowCount ?? 0;
}

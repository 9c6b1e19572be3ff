import type { SqlPool } from '../db/client.js';
import { hashLookup } from '../db/keyed-lookup.js';
import { hashToken } from '../ids/ids.js';

// A token stays known after its use (a used resume token is then a 404 of its own, an approval
// token shows the decision), so these say whether the token was ever handed out.
const lookups = {
  wait_for_webhook: hashLookup('known-resume-tokens', `SELECT token_hash AS hash FROM step_executions WHERE token_hash = ANY($1::text[]) AND type = 'wait_for_webhook'`),
  approval: hashLookup('known-approval-tokens', `SELECT token_hash AS hash FROM step_executions WHERE token_hash = ANY($1::text[]) AND type = 'approval'`),
};

/** Whether a step of this type was ever given this resume or approval token. */
export function waitTokenKnown(deps: { pool: SqlPool }, type: keyof typeof lookups, token: string): Promise<boolean> {
  return lookups[type](deps.pool, hashToken(token));
}

import { createHmac } from 'node:crypto';
import { secretsEqual } from '@cronsvc/core';

/** The name of the field every console form posts its token in. */
export const CSRF_FIELD = '_csrf';

/**
 * A session's CSRF token: derived from the session id (which only the browser holds; the server
 * stores its hash), so nothing is stored for it and it changes with every session.
 */
export function csrfToken(sessionId: string): string {
  return createHmac('sha256', sessionId).update('cronsvc console csrf').digest('base64url');
}

export function csrfMatches(expected: string, sent: unknown): boolean {
  return typeof sent === 'string' && sent.length > 0 && secretsEqual(sent, expected);
}

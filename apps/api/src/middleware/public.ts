/** Where the public endpoints are mounted: the path segment after each is a bearer token. */
export const PUBLIC_PREFIXES = { ping: '/v1/ping', triggers: '/v1/triggers', resume: '/v1/resume', approvals: '/v1/approvals' } as const;

// Routing ignores case, so the redaction does too.
const TOKEN_IN_PATH = new RegExp(`^(${Object.values(PUBLIC_PREFIXES).join('|')})/[^/]+`, 'i');

/** The path with the token of a public endpoint replaced by `:token`, for anything that logs a path. */
export function redactedPath(path: string): string {
  return path.replace(TOKEN_IN_PATH, '$1/:token');
}

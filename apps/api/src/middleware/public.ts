/** Where the public endpoints are mounted: the path segment after each is a bearer token. */
export const PUBLIC_PREFIXES = { ping: '/v1/ping', triggers: '/v1/triggers', resume: '/v1/resume', approvals: '/v1/approvals', snooze: '/v1/snooze', badges: '/v1/badges' } as const;

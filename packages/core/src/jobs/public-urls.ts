/** The public addresses of triggers, waits and approvals, built on PUBLIC_BASE_URL (no trailing slash). */
export function triggerUrl(base: string, token: string): string {
  return `${base}/v1/triggers/${token}`;
}

/** A job's or monitor's public badge (docs/JOBS.md, "Badges"); `.json` instead of `.svg` answers shields.io's endpoint object. */
export function badgeUrl(base: string, token: string): string {
  return `${base}/v1/badges/${token}.svg`;
}

export function resumeUrl(base: string, token: string): string {
  return `${base}/v1/resume/${token}`;
}

export function approvalUrls(base: string, token: string): { review_url: string; approve_url: string; reject_url: string } {
  const review = `${base}/v1/approvals/${token}`;
  return { review_url: review, approve_url: `${review}/approve`, reject_url: `${review}/reject` };
}

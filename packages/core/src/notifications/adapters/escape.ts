/** Escaping of user-supplied text (job names, response bodies, error messages) for each message format. */

const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** For HTML text and attribute values (email, chat_c). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c]);
}

/**
 * For chat_a's mrkdwn text: &, < and > are the only characters its format lets one escape; they
 * are what would turn text into a mention (`<!channel>`) or a link. Text that must not be
 * formatted at all goes into plain_text objects instead.
 */
export function escapeSlack(text: string): string {
  return text.replace(/[&<>]/g, (c) => HTML_ENTITIES[c]);
}

/**
 * For chat_b's Markdown (embed titles, descriptions and field values): a backslash before every
 * character Markdown gives a meaning to, so a job name like `*x* [y](z)` shows as written.
 */
export function escapeDiscord(text: string): string {
  return text.replace(/[\\*_~`|>#\-[\]()<@:]/g, '\\$&');
}

/** Text for inside a Markdown code block: only a run of three backticks could end it early. */
export function escapeCodeBlock(text: string): string {
  return text.replace(/```/g, '`\u200b`\u200b`');
}

/** At most `max` characters, with an ellipsis when cut. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

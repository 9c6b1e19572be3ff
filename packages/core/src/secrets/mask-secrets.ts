export const SECRET_MASK = '[secret]';

/**
 * Values shorter than this are not masked: a 1-3 character secret ("1", "yes", "abc") would turn
 * every occurrence of common text in a preview into [secret] and hide more than it protects.
 */
export const MIN_MASKED_LENGTH = 4;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The forms in which a target is likely to echo a value back: as sent, escaped inside a JSON
 * string (a JSON body echoed back), and percent-encoded (a URL echoed back).
 */
function echoedForms(value: string): string[] {
  return [value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value)];
}

/** One regex over every form, longest first, so a value that contains another is masked whole. */
function maskPattern(secretValues: string[]): RegExp | null {
  const forms = [...new Set(secretValues.filter((v) => v.length >= MIN_MASKED_LENGTH).flatMap(echoedForms))];
  if (forms.length === 0) return null;
  forms.sort((a, b) => b.length - a.length);
  return new RegExp(forms.map(escapeRegExp).join('|'), 'g');
}

/** Replaces every secret value in `text` with [secret], in one pass, so a mask is never masked again. */
export function maskSecrets(text: string, secretValues: string[]): string {
  const pattern = maskPattern(secretValues);
  return pattern ? text.replace(pattern, SECRET_MASK) : text;
}

/** maskSecrets over every value of a headers map (names are the target's, not ours). */
export function maskSecretHeaders(headers: Record<string, string>, secretValues: string[]): Record<string, string> {
  const pattern = maskPattern(secretValues);
  if (!pattern) return headers;
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, value.replace(pattern, SECRET_MASK)]));
}

import { PREVIEW_BYTES } from '../http/http-client.js';
import { MultiMatcher } from './secret-matcher.js';

export const SECRET_MASK = '[secret]';

/**
 * Values shorter than this are not masked: a 1-3 character secret ("1", "yes", "abc") would turn
 * every occurrence of common text in a preview into [secret] and hide more than it protects.
 */
export const MIN_MASKED_LENGTH = 4;

/**
 * The forms in which a target is likely to echo a value back: as sent, escaped inside a JSON
 * string (a JSON body echoed back), and percent-encoded (a URL echoed back).
 */
function echoedForms(value: string): string[] {
  return [value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value)];
}

/**
 * Replaces secret values in what is stored or sent on. Built once per attempt: the matcher reads
 * each text once, in time linear in its length, however many and however long the secrets are
 * (the secrets a job may reference are capped, see MAX_JOB_SECRET_BYTES).
 */
export interface SecretMasker {
  /** The text with every occurrence of every form of every value replaced by [secret]; overlapping occurrences become one. */
  mask(text: string): string;
  /** The longest form masked, in UTF-16 code units: how far past a cut an occurrence can reach. */
  readonly reach: number;
}

const nothingToMask: SecretMasker = { mask: (text) => text, reach: 0 };

export function secretMasker(secretValues: readonly string[]): SecretMasker {
  const forms = [...new Set(secretValues.filter((v) => v.length >= MIN_MASKED_LENGTH).flatMap(echoedForms))];
  if (forms.length === 0) return nothingToMask;
  const matcher = new MultiMatcher(forms);
  return { mask: (text) => matcher.replace(text, SECRET_MASK), reach: matcher.longest };
}

/** The secrets a request uses with [secret] for each value: rendering with them shows where each went, and no value. */
export function maskedSecretValues(secrets: ReadonlyMap<string, string>): Map<string, string> {
  return new Map([...secrets.keys()].map((name) => [name, SECRET_MASK]));
}

/** Replaces every secret value in `text` with [secret], in one pass, so a mask is never masked again. */
export function maskSecrets(text: string, secretValues: readonly string[]): string {
  return secretMasker(secretValues).mask(text);
}

/** Masks every value of a headers map (names are the target's, not ours); takes a masker or the values. */
export function maskSecretHeaders(headers: Record<string, string>, secrets: SecretMasker | readonly string[]): Record<string, string> {
  const masker = Array.isArray(secrets) ? secretMasker(secrets) : (secrets as SecretMasker);
  if (masker === nothingToMask) return headers;
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, masker.mask(value)]));
}

/**
 * Masks a JSON value (an output rendered from the body): every string and key, and a number or
 * boolean whose text is a secret becomes "[secret]". Throws RangeError for a value nested too
 * deeply for the stack, as JSON.stringify would.
 */
export function maskJson(value: unknown, masker: SecretMasker): unknown {
  if (masker === nothingToMask) return value;
  const visit = (node: unknown): unknown => {
    if (typeof node === 'string') return masker.mask(node);
    if (typeof node === 'number' || typeof node === 'boolean') return masker.mask(String(node)) === String(node) ? node : SECRET_MASK;
    if (Array.isArray(node)) return node.map(visit);
    // fromEntries defines own properties, so a "__proto__" key stays a key and never a prototype.
    if (typeof node === 'object' && node !== null) return Object.fromEntries(Object.entries(node).map(([key, child]) => [masker.mask(key), visit(child)]));
    return node;
  };
  return visit(value);
}

/** The longest prefix of `text` that is at most `maxBytes` of UTF-8, never cutting a character. */
export function utf8Prefix(text: string, maxBytes: number): string {
  // A code unit is at most 3 bytes of UTF-8 (a surrogate pair is 2 units for 4 bytes).
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const bytes = Buffer.from(text, 'utf8');
  let end = maxBytes;
  // Back to the start of the character the cut falls in (continuation bytes are 10xxxxxx).
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString('utf8');
}

/**
 * The attempt's bodyPreview: the body's first 64 KiB of UTF-8, NUL characters removed, secrets
 * masked. Only that much of the body is masked (plus the reach of the longest secret, so one
 * that straddles the 64 KiB edge is masked whole before the cut), not the whole 1 MiB.
 */
export function maskedPreview(bodyText: string, masker: SecretMasker): string {
  // NULs go first: "SEC\0RET" must not become an unmasked "SECRET" after masking.
  const text = bodyText.includes('\u0000') ? bodyText.replaceAll('\u0000', '') : bodyText;
  return utf8Prefix(masker.mask(text.slice(0, PREVIEW_BYTES + masker.reach)), PREVIEW_BYTES);
}

/**
 * Text PostgreSQL cannot store. A NUL character: `text` refuses the byte 0x00 and `jsonb` refuses
 * the escape \u0000. An unpaired UTF-16 surrogate (half of a pair, such as \ud800, which a JSON
 * string may spell but which is not Unicode text): `jsonb` refuses its escape, and `text` gets the
 * driver's U+FFFD in its place. Text that comes from outside (a target's answer, an inbound
 * webhook, a resume payload) may hold either, and a record that cannot be written is worse than a
 * changed character, so each becomes U+FFFD (the replacement character) before anything is
 * stored: visible, and not a way to glue two keys or two words into one. Input the API validates
 * is refused instead, at the path of the string (validate.ts).
 */
export const REPLACEMENT_CHARACTER = '\uFFFD';

// Without the u flag a pattern sees UTF-16 code units, so a surrogate is one character here.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

/** What is wrong with text holding one, in the words of a validation message; null when it has none. */
export function unstorableProblem(text: string): string | null {
  const found = UNSTORABLE.exec(text);
  if (!found) return null;
  return found[0] === '\u0000' ? 'must not contain a NUL character' : 'must not contain an unpaired UTF-16 surrogate (such as \\ud800), which is not Unicode text';
}

export function storableText(text: string): string {
  return UNSTORABLE.test(text) ? text.replace(UNSTORABLE_ALL, REPLACEMENT_CHARACTER) : text;
}

/**
 * The JSON value with NUL and unpaired surrogates replaced in every string and key. Values without
 * them are returned as they are (the same object), so the common case allocates nothing.
 * Iterative, so a deep value cannot overflow the stack.
 */
export function storableValue<T>(value: T): T {
  if (typeof value === 'string') return storableText(value) as T;
  if (typeof value !== 'object' || value === null || !holdsUnstorableText(value)) return value;
  return JSON.parse(storableJsonText(JSON.stringify(value))) as T;
}

// \u0000, or a \ud800-\udfff escape, where its backslash is not itself escaped (preceded by an even
// run of them). JSON.stringify escapes a surrogate only when it is unpaired, so in its output every
// such escape is one PostgreSQL refuses.
const ESCAPED_UNSTORABLE = /(?<=(?:^|[^\\])(?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/gi;

/** JSON text as JSON.stringify writes it, with every escaped NUL or unpaired surrogate turned into \ufffd: what jsonb can store. */
export function storableJsonText(text: string): string {
  return text.includes('\\u') ? text.replace(ESCAPED_UNSTORABLE, '\\ufffd') : text;
}

/** Whether a string or key anywhere in `value` holds NUL or an unpaired surrogate. */
export function holdsUnstorableText(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node === 'string') {
      if (UNSTORABLE.test(node)) return true;
    } else if (Array.isArray(node)) {
      // One by one: spreading an array of 200,000 items as arguments overflows the stack.
      for (const child of node) pending.push(child);
    } else if (typeof node === 'object' && node !== null) {
      for (const [key, child] of Object.entries(node)) {
        if (UNSTORABLE.test(key)) return true;
        pending.push(child);
      }
    }
  }
  return false;
}

/**
 * Where such text appears in `value`, and what is wrong there: the path of each string holding
 * some, or of the object whose key holds some (a key is not a field the caller can name). At most
 * `max` of them, in no particular order. Iterative, like holdsUnstorableText.
 */
export function unstorablePaths(value: unknown, max = 10): { path: (string | number)[]; problem: string }[] {
  const found: { path: (string | number)[]; problem: string }[] = [];
  const pending: { node: unknown; path: (string | number)[] }[] = [{ node: value, path: [] }];
  while (pending.length > 0 && found.length < max) {
    const { node, path } = pending.pop()!;
    if (typeof node === 'string') {
      const problem = unstorableProblem(node);
      if (problem) found.push({ path, problem });
    } else if (Array.isArray(node)) node.forEach((child, i) => pending.push({ node: child, path: [...path, i] }));
    else if (typeof node === 'object' && node !== null) {
      const entries = Object.entries(node);
      const problem = entries.map(([key]) => unstorableProblem(key)).find((p) => p !== null);
      if (problem) found.push({ path, problem });
      else for (const [key, child] of entries) pending.push({ node: child, path: [...path, key] });
    }
  }
  return found;
}

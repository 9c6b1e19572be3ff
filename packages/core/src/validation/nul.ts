/**
 * PostgreSQL cannot store a NUL character: `text` refuses the byte 0x00 and `jsonb` refuses the
 * escape \u0000. Text that comes from outside (a target's answer, an inbound webhook, a resume
 * payload) may hold one, and a record that cannot be written is worse than a changed character,
 * so NUL becomes U+FFFD (the replacement character) before anything is stored: visible, and not
 * a way to glue two keys or two words into one.
 */
export const NUL_REPLACEMENT = '\uFFFD';

export function withoutNulText(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', NUL_REPLACEMENT) : text;
}

/**
 * The JSON value with NUL replaced in every string and key. Values without NUL are returned as
 * they are (the same object), so the common case allocates nothing. Iterative, so a deep value
 * cannot overflow the stack.
 */
export function withoutNul<T>(value: T): T {
  if (typeof value === 'string') return withoutNulText(value) as T;
  if (typeof value !== 'object' || value === null || !containsNul(value)) return value;
  return JSON.parse(withoutNulJsonText(JSON.stringify(value))) as T;
}

// \u0000 in JSON text, where its backslash is not itself escaped (preceded by an even run of them).
const ESCAPED_NUL = /(?<=(?:^|[^\\])(?:\\\\)*)\\u0000/g;

/** JSON text with every escaped NUL (\u0000 inside a string or key) turned into \ufffd: what jsonb can store. */
export function withoutNulJsonText(text: string): string {
  return text.includes('\\u0000') ? text.replace(ESCAPED_NUL, '\\ufffd') : text;
}

/** Whether a string or key anywhere in `value` holds NUL. */
export function containsNul(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node === 'string') {
      if (node.includes('\u0000')) return true;
    } else if (Array.isArray(node)) {
      // One by one: spreading an array of 200,000 items as arguments overflows the stack.
      for (const child of node) pending.push(child);
    } else if (typeof node === 'object' && node !== null) {
      for (const [key, child] of Object.entries(node)) {
        if (key.includes('\u0000')) return true;
        pending.push(child);
      }
    }
  }
  return false;
}

/**
 * Where NUL appears in `value`: the path of each string holding one, or of the object whose key
 * holds one (a key is not a field the caller can name). At most `max` of them, in no particular
 * order. Iterative, like containsNul.
 */
export function nulPaths(value: unknown, max = 10): (string | number)[][] {
  const found: (string | number)[][] = [];
  const pending: { node: unknown; path: (string | number)[] }[] = [{ node: value, path: [] }];
  while (pending.length > 0 && found.length < max) {
    const { node, path } = pending.pop()!;
    if (typeof node === 'string') {
      if (node.includes('\u0000')) found.push(path);
    } else if (Array.isArray(node)) node.forEach((child, i) => pending.push({ node: child, path: [...path, i] }));
    else if (typeof node === 'object' && node !== null) {
      const entries = Object.entries(node);
      if (entries.some(([key]) => key.includes('\u0000'))) found.push(path);
      else for (const [key, child] of entries) pending.push({ node: child, path: [...path, key] });
    }
  }
  return found;
}

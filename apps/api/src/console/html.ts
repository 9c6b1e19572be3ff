import { html as escapingHtml } from 'hono/html';

/** A fragment of HTML whose interpolated values are already escaped; nests without escaping twice. */
export type Html = Awaited<ReturnType<typeof escapingHtml>>;

/**
 * Hono's `html` tag (docs/adr/015-web-console.md): every interpolated value is escaped unless it
 * is itself an `html` fragment; arrays are joined; null, undefined and false render nothing.
 * Nothing here interpolates a promise, so the result is always the string itself.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  return escapingHtml(strings, ...values) as Html;
}

/** The fragments joined, for a list built in a loop. */
export const join = (parts: Html[]): Html => html`${parts}`;

import { html, type Html } from '../html.js';

/** One labelled form control, with its hint and the API's messages about it. */
export interface FieldSpec {
  name: string;
  label: string;
  type?: 'text' | 'url' | 'number' | 'password' | 'textarea' | 'select';
  hint?: string;
  options?: readonly string[];
  /** Job kinds the field applies to; the others hide it (the server ignores it for them). */
  kinds?: readonly string[];
  placeholder?: string;
  required?: boolean;
  tall?: boolean;
  /** A prefix for the element's id, where a page has the same form more than once. */
  idPrefix?: string;
  /** The element's id, where the name does not make one (a step's fields). */
  id?: string;
  /** Words read before the label but not shown ("Step 2"), where the same label is on the page more than once. */
  labelContext?: string;
  /** More attributes of the control (htmx's, autofocus). */
  attributes?: Html;
}

/** The control's id: tests and the label's `for` find it by this. */
export const fieldId = (spec: Pick<FieldSpec, 'name' | 'idPrefix' | 'id'>) => spec.id ?? `${spec.idPrefix ?? 'f'}-${spec.name.replace(/_/g, '-')}`;

export function field(spec: FieldSpec, value: string | undefined, errors: string[] = []): Html {
  const id = fieldId(spec);
  const described = [spec.hint ? `${id}-hint` : '', errors.length ? `${id}-error` : ''].filter(Boolean).join(' ');
  const attrs = html`id="${id}" name="${spec.name}"${spec.required ? html` required` : ''}${errors.length ? html` aria-invalid="true"` : ''}${
    described ? html` aria-describedby="${described}"` : ''
  }${spec.attributes ? html` ${spec.attributes}` : ''}`;
  const v = value ?? '';
  let control: Html;
  if (spec.type === 'select') {
    // A value the list does not offer (JSON typed by hand) is shown as it is, for the API's message to be about it.
    const options = [...(spec.options ?? []), ...(v !== '' && !(spec.options ?? []).includes(v) ? [v] : [])];
    control = html`<select ${attrs}>${options.map((o) => html`<option value="${o}"${o === v ? html` selected` : ''}>${o}</option>`)}</select>`;
  } else if (spec.type === 'textarea') {
    control = html`<textarea ${attrs}${spec.tall ? html` class="tall"` : ''} spellcheck="false"${spec.placeholder ? html` placeholder="${spec.placeholder}"` : ''}>${v}</textarea>`;
  } else {
    const type = spec.type === 'number' ? 'text' : (spec.type ?? 'text');
    // Numbers are text with a numeric keyboard: a browser's own number check would hide the API's message.
    control = html`<input type="${type}" ${attrs} value="${v}"${spec.type === 'number' ? html` inputmode="numeric"` : ''}${
      spec.type === 'password' ? html` autocomplete="new-password"` : html` autocomplete="off"`
    }${spec.placeholder ? html` placeholder="${spec.placeholder}"` : ''}>`;
  }
  return html`<div class="field"${spec.kinds ? html` data-kinds="${spec.kinds.join(' ')}"` : ''}>
<label for="${id}">${spec.labelContext ? html`<span class="visually-hidden">${spec.labelContext} </span>` : ''}${spec.label}</label>
${control}
${spec.hint ? html`<span class="hint" id="${id}-hint">${spec.hint}</span>` : ''}
${errors.length ? html`<span class="field-error" id="${id}-error">${errors.join('; ')}</span>` : ''}
</div>`;
}

/** The form's problems at the top, each linked to its field, for keyboard and screen-reader users. */
export function errorSummary(title: string, errors: Record<string, string[]>, labels: Record<string, string>, idOf: (name: string) => string): Html {
  const entries = Object.entries(errors).filter(([, messages]) => messages.length > 0);
  if (entries.length === 0) return html``;
  const items = entries.map(([name, messages]) =>
    name === '' || !labels[name] ? html`<li>${messages.join('; ')}</li>` : html`<li><a href="#${idOf(name)}">${labels[name]}</a>: ${messages.join('; ')}</li>`,
  );
  return html`<div class="alert" role="alert" tabindex="-1" id="form-errors"><strong>${title}</strong><ul>${items}</ul></div>`;
}

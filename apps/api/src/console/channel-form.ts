import type { ChannelType } from '@cronsvc/contracts';

/**
 * The console's channel forms (docs/CONSOLE.md, "Channels"): the fields of each channel type as
 * a person fills them in, and the API body they make. Credentials are never shown: on an edit a
 * credential left empty stays as it is.
 */

export type ChannelFieldKind = 'text' | 'credential' | 'checkbox' | 'list';

export interface ChannelField {
  name: string;
  label: string;
  kind: ChannelFieldKind;
  required?: boolean;
  hint?: string;
  inputType?: 'url' | 'email' | 'text';
}

export const CHANNEL_FIELDS: Record<ChannelType, ChannelField[]> = {
  webhook: [
    { name: 'url', label: 'URL', kind: 'credential', required: true, inputType: 'url', hint: 'Receives the JSON payload by POST.' },
    { name: 'signing_secret', label: 'Signing secret', kind: 'credential', hint: 'Optional: signs each body (X-Signature, HMAC-SHA256). {{secret.name}} works.' },
  ],
  email: [{ name: 'email', label: 'Email address', kind: 'text', required: true, inputType: 'email' }],
  chat_a: [
    { name: 'webhook_url', label: 'Incoming webhook URL', kind: 'credential', required: true, inputType: 'url' },
    { name: 'mention_text', label: 'Mention', kind: 'text', hint: 'Optional, sent as written first, e.g. <!here>.' },
    { name: 'include_output', label: 'Include the response body', kind: 'checkbox' },
  ],
  chat_b: [
    { name: 'webhook_url', label: 'Webhook URL', kind: 'credential', required: true, inputType: 'url' },
    { name: 'thread_id', label: 'Thread id', kind: 'text', hint: 'Optional.' },
    { name: 'mention_role_ids', label: 'Role ids to mention', kind: 'list', hint: 'Optional, separated by commas.' },
    { name: 'include_output', label: 'Include the response body', kind: 'checkbox' },
  ],
  chat_c: [
    { name: 'bot_token', label: 'Bot token', kind: 'credential', required: true },
    { name: 'chat_id', label: 'Chat id', kind: 'text', required: true, hint: 'Numeric; negative for groups.' },
    { name: 'message_thread_id', label: 'Topic (thread) id', kind: 'text', hint: 'Optional.' },
  ],
};

const text = (form: Record<string, unknown>, name: string) => (typeof form[name] === 'string' ? (form[name] as string).trim() : '');

/**
 * The config of a channel form. Creating, empty fields are left out; editing, an empty credential
 * stays as stored and any other empty field returns to its default (null in a PATCH).
 */
export function channelConfigFromForm(type: ChannelType, form: Record<string, unknown>, editing: boolean): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const field of CHANNEL_FIELDS[type]) {
    const value = text(form, field.name);
    if (field.kind === 'checkbox') config[field.name] = form[field.name] === 'on';
    else if (value === '') {
      if (editing && field.kind !== 'credential') config[field.name] = null;
    } else if (field.kind === 'list') config[field.name] = value.split(/[\s,]+/).filter(Boolean);
    else config[field.name] = value;
  }
  return config;
}

import { CHANNEL_TYPES, MONITOR_RULE_EVENTS, type Channel, type ChannelTestResult, type ChannelType } from '@cronsvc/contracts';
import { CHANNEL_FIELDS, type ChannelField } from '../channel-form.js';
import type { ChannelRule } from '@cronsvc/core';
import { html, type Html } from '../html.js';
import { paths } from '../paths.js';
import { allowed, csrfField, page, postButton, type ViewContext } from './layout.js';
import { ruleState } from './rule-state.view.js';

/** The outcome of a channel's test, announced where the button is. */
function testResult(channelId: string, result: ChannelTestResult | undefined): Html {
  const body = !result
    ? ''
    : result.ok
      ? html`<span class="badge s-sent">sent</span> The test message was delivered through ${result.provider}.`
      : html`<span class="badge s-failed">failed</span> ${result.error.message}${result.http_status ? ` (HTTP ${result.http_status})` : ''}${
          result.permanent ? ' This will not work until the channel is changed.' : ' This may work on another try.'
        }`;
  return html`<div class="test-result" id="test-${channelId}" role="status">${body}</div>`;
}

/** Non-secret settings as stored; credentials only by name (the API never returns them). */
function settings(channel: Channel): Html {
  const plain = Object.entries(channel.config).map(([k, v]) => html`<li><code>${k}</code>: ${typeof v === 'string' ? v : JSON.stringify(v)}</li>`);
  const secret = channel.configured_secrets.map((k) => html`<li><code>${k}</code>: <span class="muted">set (hidden)</span></li>`);
  return plain.length + secret.length === 0 ? html`<span class="muted">none</span>` : html`<ul>${plain}${secret}</ul>`;
}

function rules(ctx: ViewContext, channelRules: ChannelRule[]): Html {
  if (channelRules.length === 0) return html`<span class="muted">No rule sends here yet.</span>`;
  const items = channelRules.map((r) => {
    const owner = r.job ? { kind: 'job' as const, ...r.job } : { kind: 'monitor' as const, ...(r.monitor as { id: string; name: string }) };
    const link = owner.kind === 'job' ? html`job <a href="${paths.job(owner.id)}">${owner.name}</a>` : html`monitor <a href="${paths.monitor(owner.id)}">${owner.name}</a>`;
    return html`<li class="actions"><span><strong>${r.event}</strong> of ${link}</span>${ruleState(ctx, r.rule, paths.channels)}${postButton(ctx, paths.ruleDelete(owner, r.id), 'Remove', {
      className: 'small',
      fields: { back: paths.channels },
    })}</li>`;
  });
  return html`<ul class="plain">${items}</ul>`;
}

export interface ChannelsPage {
  channels: Channel[];
  rules: ChannelRule[];
  monitors: { id: string; name: string }[];
  tested?: { id: string; result: ChannelTestResult };
}

function monitorRuleForm(ctx: ViewContext, view: ChannelsPage): Html {
  if (view.channels.length === 0 || view.monitors.length === 0 || !allowed(ctx, paths.monitorRule)) return html``;
  const options = (items: { id: string; name: string }[]) => items.map((i) => html`<option value="${i.id}">${i.name}</option>`);
  return html`<section class="card" aria-labelledby="monitor-rule-heading"><h2 id="monitor-rule-heading">Alert on a monitor</h2>
<form class="inline-form" method="post" action="${paths.monitorRule}">
${csrfField(ctx.csrf)}
<div class="field"><label for="rule-monitor">Monitor</label><select id="rule-monitor" name="monitor_id">${options(view.monitors)}</select></div>
<div class="field"><label for="rule-channel">Channel</label><select id="rule-channel" name="channel_id">${options(view.channels)}</select></div>
<div class="field"><label for="rule-event">Event</label><select id="rule-event" name="event">${MONITOR_RULE_EVENTS.map((e) => html`<option value="${e}">${e}</option>`)}</select></div>
<button type="submit">Add rule</button>
</form></section>`;
}

/** One field of a channel form; `channel` fills it in for an edit (never a credential). */
function channelField(idPrefix: string, field: ChannelField, channel?: Channel): Html {
  const id = `${idPrefix}-${field.name}`;
  const hint = field.hint ? html`<span class="muted" id="${id}-hint">${field.hint}</span>` : '';
  const described = field.hint ? html` aria-describedby="${id}-hint"` : '';
  const stored = channel?.config[field.name];
  if (field.kind === 'checkbox') {
    return html`<div class="field"><label><input type="checkbox" id="${id}" name="${field.name}"${stored === true ? ' checked' : ''}> ${field.label}</label></div>`;
  }
  const set = channel?.configured_secrets.includes(field.name);
  const value = field.kind === 'credential' || stored === undefined || stored === null ? '' : Array.isArray(stored) ? stored.join(', ') : String(stored);
  const placeholder = set ? html` placeholder="set (hidden): leave empty to keep"` : '';
  const required = field.required && !(channel && field.kind === 'credential') ? ' required' : '';
  return html`<div class="field"><label for="${id}">${field.label}</label><input id="${id}" name="${field.name}" type="${field.inputType ?? 'text'}" value="${value}"${placeholder}${required}${described} autocomplete="off">${hint}</div>`;
}

function newChannelForms(ctx: ViewContext): Html {
  const forms = CHANNEL_TYPES.map(
    (type: ChannelType) => html`<details><summary>New ${type} channel</summary>
<form method="post" action="${paths.channels}">
${csrfField(ctx.csrf)}<input type="hidden" name="type" value="${type}">
<div class="field"><label for="new-${type}-name">Name</label><input id="new-${type}-name" name="name" required maxlength="200"></div>
${CHANNEL_FIELDS[type].map((f) => channelField(`new-${type}`, f))}
<div class="actions"><button type="submit">Create channel</button></div>
</form></details>`,
  );
  return html`<section class="card" aria-labelledby="new-channel-heading"><h2 id="new-channel-heading">Add a channel</h2>${forms}</section>`;
}

function editChannelForm(ctx: ViewContext, channel: Channel): Html {
  const prefix = `edit-${channel.id}`;
  return html`<details><summary>Edit</summary>
<form method="post" action="${paths.channel(channel.id)}">
${csrfField(ctx.csrf)}
<div class="field"><label for="${prefix}-name">Name</label><input id="${prefix}-name" name="name" required maxlength="200" value="${channel.name}"></div>
${CHANNEL_FIELDS[channel.type].map((f) => channelField(prefix, f, channel))}
<div class="actions"><button type="submit">Save channel</button></div>
</form></details>`;
}

/** Channels: where notifications go, what sends to each (rules), and Send test with its outcome. */
export function channelsView(ctx: ViewContext, view: ChannelsPage): Html {
  const { channels, rules: channelRules, tested } = view;
  const cards = channels.map(
    (c) => html`<section class="card" aria-labelledby="channel-${c.id}">
<h2 id="channel-${c.id}">${c.name} <span class="badge">${c.type}</span></h2>
<div class="grid">
<div><h3>Settings</h3>${settings(c)}</div>
<div><h3>Rules</h3>${rules(ctx, channelRules.filter((r) => r.channelId === c.id))}</div>
</div>
${editChannelForm(ctx, c)}
${allowed(ctx, paths.channelTest(c.id)) ? html`<form method="post" action="${paths.channelTest(c.id)}" hx-post="${paths.channelTest(c.id)}" hx-target="#test-${c.id}" hx-select="#test-${c.id}" hx-swap="outerHTML">
${csrfField(ctx.csrf)}<div class="actions"><button type="submit">Send test</button></div>
</form>` : ''}
${testResult(c.id, tested?.id === c.id ? tested.result : undefined)}
</section>`,
  );
  return page(
    ctx,
    { title: 'Channels', section: 'channels' },
    html`<h1>Channels</h1>
<p class="muted">A job's rules are added on its page, a monitor's below. Send test delivers a sample success notification now, without retries. Credentials are never shown again once saved.</p>
${channels.length === 0 ? html`<p class="empty">No notification channels yet.</p>` : cards}
${newChannelForms(ctx)}
${monitorRuleForm(ctx, view)}`,
  );
}

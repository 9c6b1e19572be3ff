import { MONITOR_RULE_EVENTS, type Channel, type ChannelTestResult } from '@cronsvc/contracts';
import type { ChannelRule } from '@cronsvc/core';
import { html, type Html } from '../html.js';
import { paths } from '../paths.js';
import { csrfField, page, postButton, type ViewContext } from './layout.js';
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
    const link = owner.kind === 'job' ? html`job <a href="${paths.job(owner.id)}">${owner.name}</a>` : html`monitor ${owner.name}`;
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
  if (view.channels.length === 0 || view.monitors.length === 0) return html``;
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
<form method="post" action="${paths.channelTest(c.id)}" hx-post="${paths.channelTest(c.id)}" hx-target="#test-${c.id}" hx-select="#test-${c.id}" hx-swap="outerHTML">
${csrfField(ctx.csrf)}<div class="actions"><button type="submit">Send test</button></div>
</form>
${testResult(c.id, tested?.id === c.id ? tested.result : undefined)}
</section>`,
  );
  return page(
    ctx,
    { title: 'Channels', section: 'channels' },
    html`<h1>Channels</h1>
<p class="muted">Channels are created through the API or the CLI; a job's rules are added on its page, a monitor's below. Send test delivers a sample success notification now, without retries.</p>
${channels.length === 0 ? html`<p class="empty">No notification channels yet.</p>` : cards}
${monitorRuleForm(ctx, view)}`,
  );
}

import path from 'node:path';
import { aChannel, aRecurringJob } from '@cronsvc/core/testing';
import { accessibilityProblems, DESKTOP, PHONE, SCREENSHOTS, scrollsSideways, useConsole } from './console-fixture.js';

// Quiet alerts in the console (docs/CONSOLE.md): a job's rule takes its streak options; each rule
// shows its options, snooze state and held-back count, with Snooze and Unsnooze buttons, on the
// job's page and on the channels page.
const f = useConsole();

it('adds an on_failure rule with its options, snoozes it for 1 h, 1 day and until unsnoozed, and unsnoozes it', async () => {
  const job = await f.createJob(aRecurringJob({ name: 'alerting job', request: { url: `${f.target.url}/x` } }));
  const channel = await aChannel(f.ctx.runtime, f.workspaceId, 'webhook', { url: 'https://hooks.example.com/console-alerts' }, 'ops hook');
  const page = await f.signedInPage(DESKTOP);
  await page.goto(`${f.base}/console/jobs/${job.id}`);
  await page.getByLabel('Channel', { exact: true }).selectOption(channel.id);
  await page.getByLabel('Event', { exact: true }).selectOption('on_failure');
  await page.getByLabel('After consecutive failures', { exact: true }).fill('3');
  await page.getByLabel('Remind every (minutes)', { exact: true }).fill('60');
  await page.getByRole('button', { name: 'Add rule' }).click();
  await page.waitForURL(/done=rule-added/);
  const rules = (await f.get(`/v1/jobs/${job.id}/notification-rules`)).body.data as Record<string, any>[];
  expect(rules).toEqual([expect.objectContaining({ event: 'on_failure', after_consecutive_failures: 3, realert_after_minutes: 60 })]);
  const item = page.getByRole('listitem').filter({ hasText: 'on_failure to ops hook' });
  await expect(item.innerText()).resolves.toContain('after 3 consecutive failures, again every 60 min');

  await item.getByRole('button', { name: 'Snooze 1 h' }).click();
  await page.waitForURL(/done=rule-snoozed/);
  const hour = (await f.get(`/v1/notification-rules/${rules[0].id}`)).body;
  expect(Date.parse(hour.snoozed_until) - Date.now()).toBeGreaterThan(59 * 60_000);
  await expect(item.innerText()).resolves.toContain('snoozed until');
  await item.getByRole('button', { name: 'Unsnooze' }).click();
  await page.waitForURL(/done=rule-unsnoozed/);
  expect((await f.get(`/v1/notification-rules/${rules[0].id}`)).body.snoozed_until).toBeNull();
  await item.getByRole('button', { name: 'Snooze 1 day' }).click();
  await page.waitForURL(/done=rule-snoozed/);
  expect(Date.parse((await f.get(`/v1/notification-rules/${rules[0].id}`)).body.snoozed_until) - Date.now()).toBeGreaterThan(1439 * 60_000);
  await item.getByRole('button', { name: 'Unsnooze' }).click();
  await page.waitForURL(/done=rule-unsnoozed/);
  await item.getByRole('button', { name: 'Snooze until unsnoozed' }).click();
  await page.waitForURL(/done=rule-snoozed/);
  await expect(item.innerText()).resolves.toContain('snoozed until unsnoozed');
  await f.ctx.runtime.db.notificationRule.update({ where: { id: rules[0].id }, data: { heldBack: 4 } });
  await page.reload();
  await expect(item.innerText()).resolves.toContain('4 held back');
  expect(await accessibilityProblems(page)).toEqual([]);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'job-rules-snoozed.png'), fullPage: true });

  // The channels page shows the same rule with its state and buttons.
  for (const viewport of [DESKTOP, PHONE]) {
    const channels = await f.signedInPage(viewport);
    await channels.goto(`${f.base}/console/channels`);
    const rule = channels.getByRole('listitem').filter({ hasText: 'alerting job' });
    await expect(rule.innerText()).resolves.toContain('snoozed until unsnoozed');
    await expect(rule.getByRole('button', { name: 'Unsnooze' }).isVisible()).resolves.toBe(true);
    expect(await accessibilityProblems(channels)).toEqual([]);
    expect(await scrollsSideways(channels)).toBe(false);
    await channels.screenshot({ path: path.join(SCREENSHOTS, `channels-rules-${viewport.width}.png`), fullPage: true });
    await channels.context().close();
  }
  await page.context().close();
});

it('creates a channel of every type from its form, and edits one keeping its hidden credential', async () => {
  const page = await f.signedInPage(DESKTOP);
  await page.goto(`${f.base}/console/channels`);
  const fill = async (type: string, name: string, fields: Record<string, string>, checks: string[] = []) => {
    await page.getByText(`New ${type} channel`, { exact: true }).click();
    await page.locator(`#new-${type}-name`).fill(name);
    for (const [field, value] of Object.entries(fields)) await page.locator(`#new-${type}-${field}`).fill(value);
    for (const field of checks) await page.locator(`#new-${type}-${field}`).check();
    await page.locator(`form:has(#new-${type}-name)`).getByRole('button', { name: 'Create channel' }).click();
    await page.waitForURL(/done=channel-created/);
  };
  await fill('webhook', 'form hook', { url: 'https://hooks.example.com/form', signing_secret: 'form-secret' });
  await fill('email', 'form mail', { email: 'form@example.com' });
  await fill('chat_a', 'form chat a', { webhook_url: 'https://chat-a.example.com/hook', mention_text: '<!here>' }, ['include_output']);
  await fill('chat_b', 'form chat b', { webhook_url: 'https://chat-b.example.com/hook', mention_role_ids: '42, 43' });
  await fill('chat_c', 'form chat c', { bot_token: '123:abc', chat_id: '-1001', message_thread_id: '5' });
  const channels = (await f.get('/v1/notification-channels')).body.data as Record<string, any>[];
  const byName = new Map(channels.map((c) => [c.name, c]));
  expect(byName.get('form hook')).toMatchObject({ type: 'webhook', configured_secrets: ['url', 'signing_secret'] });
  expect(byName.get('form mail')).toMatchObject({ type: 'email', config: { email: 'form@example.com' } });
  expect(byName.get('form chat a')).toMatchObject({ type: 'chat_a', config: { mention_text: '<!here>', include_output: true } });
  expect(byName.get('form chat b')).toMatchObject({ type: 'chat_b', config: { mention_role_ids: ['42', '43'], include_output: false } });
  expect(byName.get('form chat c')).toMatchObject({ type: 'chat_c', config: { chat_id: '-1001', message_thread_id: '5' }, configured_secrets: ['bot_token'] });
  expect(await accessibilityProblems(page)).toEqual([]);

  const hook = byName.get('form hook')!;
  const card = page.locator(`section[aria-labelledby="channel-${hook.id}"]`);
  await card.getByText('Edit', { exact: true }).click();
  await card.getByLabel('Name', { exact: true }).fill('renamed hook');
  await card.getByRole('button', { name: 'Save channel' }).click();
  await page.waitForURL(/done=channel-updated/);
  expect((await f.get(`/v1/notification-channels/${hook.id}`)).body).toMatchObject({ name: 'renamed hook', configured_secrets: ['url', 'signing_secret'] });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'channels-forms.png'), fullPage: true });
  await page.context().close();
});

import path from 'node:path';
import type { Page } from 'playwright-core';
import { approvalStep, aWorkflow, httpStep, waitFor, waitStep } from '@cronsvc/core/testing';
import { accessibilityProblems, PHONE, SCREENSHOTS, scrollsSideways, useConsole } from './console-fixture.js';

// The step list of a workflow's edit form in a real browser: add, remove and reorder with htmx
// (the page is not reloaded) and without script (the buttons post and the page comes back), the
// fields of each step type, the API's messages beside the step field they are about, and the
// JSON alternative; every save checked through the API.
const f = useConsole();

const apiSteps = async (id: string) => (await f.get(`/v1/jobs/${id}`)).body.steps as Record<string, unknown>[];
const ids = async (page: Page) => page.locator('[id^="step-"][id$="-id"]').evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value));

async function workflow(name: string): Promise<string> {
  const job = await f.createJob(aWorkflow([httpStep('build', `${f.target.url}/build`, { method: 'POST', headers: { 'X-Trace': '{{uuid}}' } }), waitStep('deploy', { timeout_seconds: 600 }), approvalStep('review', 'Ship it?')], { name }));
  return job.id;
}

async function plainPage(): Promise<Page> {
  const context = await f.browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(`${f.base}/console/sign-in`);
  await page.getByLabel('API token').fill(f.token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/console\/jobs$/);
  return page;
}

it('shows each step with the fields of its type, and adds, moves and removes steps in place with htmx', async () => {
  const id = await workflow('steps with script');
  const page = await f.signedInPage();
  await page.goto(`${f.base}/console/jobs/${id}/edit`);
  await expect(page.getByLabel('Step 1 URL').inputValue()).resolves.toBe(`${f.target.url}/build`);
  await expect(page.getByLabel('Step 1 Method').inputValue()).resolves.toBe('POST');
  await expect(page.getByLabel('Step 1 Headers').inputValue()).resolves.toBe('X-Trace: {{uuid}}');
  await expect(page.getByLabel('Step 2 Timeout (seconds)').inputValue()).resolves.toBe('600');
  await expect(page.getByLabel('Step 2 On timeout').inputValue()).resolves.toBe('fail');
  await expect(page.getByLabel('Step 3 Message').inputValue()).resolves.toBe('Ship it?');
  expect(await page.getByLabel('Step 3 URL').count()).toBe(0);
  expect(await page.getByLabel('Steps', { exact: true }).isVisible()).toBe(false);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'workflow-edit.png'), fullPage: true });

  // A marker on the window survives only if the page is not reloaded.
  await page.evaluate('window.notReloaded = true');
  await page.getByLabel('Step 3 Message').fill('Ship {{context.build_id}}?');
  await page.getByRole('button', { name: 'Move up step 3' }).click();
  await waitFor(async () => ((await ids(page)).join() === 'build,review,deploy' ? true : undefined), { what: 'review moved up' });
  await waitFor(async () => ((await page.evaluate('document.activeElement.id')) === 'step-1-up' ? true : undefined), { what: 'the focus on step-1-up' });
  await page.keyboard.press('Enter');
  await waitFor(async () => ((await ids(page)).join() === 'review,build,deploy' ? true : undefined), { what: 'review moved up again, from the keyboard' });
  await expect(page.getByLabel('Step 1 Message').inputValue()).resolves.toBe('Ship {{context.build_id}}?');

  await page.getByRole('button', { name: 'Remove step 3' }).click();
  await waitFor(async () => ((await ids(page)).join() === 'review,build' ? true : undefined), { what: 'deploy removed' });
  await page.getByRole('button', { name: 'Add wait_for_webhook step' }).click();
  await waitFor(async () => ((await ids(page)).join() === 'review,build,step-3' ? true : undefined), { what: 'a wait step added' });
  // The focus moves to the new step once it has settled, a moment after it shows.
  await waitFor(async () => ((await page.evaluate('document.activeElement.id')) === 'step-2-id' ? true : undefined), { what: 'the focus on the new step' });
  await page.getByLabel('Step 3 ID').fill('hold');
  await page.getByLabel('Step 3 On timeout').selectOption('continue');

  // Changing a step's type brings that type's fields.
  await page.getByLabel('Step 2 Type').selectOption('approval');
  await page.getByLabel('Step 2 Message').waitFor();
  expect(await page.getByLabel('Step 2 URL').count()).toBe(0);
  // The focus goes back to the type once the swapped step has settled, a moment after it shows.
  await waitFor(async () => ((await page.evaluate('document.activeElement.id')) === 'step-1-type' ? true : undefined), {
    what: 'the focus back on the type of step 2',
  });
  await page.getByLabel('Step 2 Message').fill('Really?');
  expect(await page.evaluate('window.notReloaded')).toBe(true);
  expect(await accessibilityProblems(page)).toEqual([]);

  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.waitForURL(/\?done=job-saved$/);
  expect(await apiSteps(id)).toMatchObject([
    { id: 'review', type: 'approval', message: 'Ship {{context.build_id}}?' },
    { id: 'build', type: 'approval', message: 'Really?' },
    { id: 'hold', type: 'wait_for_webhook', on_timeout: 'continue' },
  ]);
});

it('does the same without script: each button posts the form and the page comes back, nothing saved until Save', async () => {
  const id = await workflow('steps without script');
  const page = await plainPage();
  await page.goto(`${f.base}/console/jobs/${id}/edit`);
  await page.getByLabel('Step 1 URL').fill(`${f.target.url}/typed`);
  await page.getByRole('button', { name: 'Move down step 1' }).click();
  await page.waitForURL(`${f.base}/console/jobs/${id}`);
  expect(await ids(page)).toEqual(['deploy', 'build', 'review']);
  // What was typed came back with it; nothing is saved yet.
  await expect(page.getByLabel('Step 2 URL').inputValue()).resolves.toBe(`${f.target.url}/typed`);
  expect((await apiSteps(id)).map((s) => s.id)).toEqual(['build', 'deploy', 'review']);

  await page.getByRole('button', { name: 'Add http step' }).click();
  await page.getByLabel('Step 4 URL').fill(`${f.target.url}/fourth`);
  await page.getByRole('button', { name: 'Remove step 1' }).click();
  expect(await ids(page)).toEqual(['build', 'review', 'step-4']);

  // Without script the type's fields come with a button of their own.
  await page.getByLabel('Step 2 Type').selectOption('wait_for_webhook');
  await page.getByRole('button', { name: 'Show the fields of this type (step 2)' }).click();
  expect(await page.getByLabel('Step 2 Message').count()).toBe(0);
  await page.getByLabel('Step 2 Timeout (seconds)').fill('120');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'workflow-edit-no-script.png'), fullPage: true });

  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.waitForURL(/\?done=job-saved$/);
  expect(await apiSteps(id)).toMatchObject([
    { id: 'build', type: 'http', url: `${f.target.url}/typed`, method: 'POST' },
    { id: 'review', type: 'wait_for_webhook', timeout_seconds: 120 },
    { id: 'step-4', type: 'http', url: `${f.target.url}/fourth` },
  ]);
});

it('shows the API’s messages next to the step fields they are about, and keeps what was typed', async () => {
  const id = await workflow('steps with mistakes');
  const page = await f.signedInPage();
  await page.goto(`${f.base}/console/jobs/${id}/edit`);
  await page.getByLabel('Step 1 URL').fill('not a url');
  await page.getByLabel('Step 2 Timeout (seconds)').fill('0');
  await page.getByLabel('Step 3 ID').fill('build');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('alert').waitFor();

  const body = aWorkflow([httpStep('build', 'not a url'), waitStep('deploy', { timeout_seconds: 0 }), approvalStep('build', 'Ship it?')]);
  const api = (await f.post('/v1/jobs', body)).body.error.details as { path: string; message: string }[];
  const message = (p: string) => api.find((d) => d.path === p)?.message;
  await expect(page.locator('#step-0-url-error').innerText()).resolves.toBe(message('steps[0].url'));
  await expect(page.locator('#step-1-timeout-seconds-error').innerText()).resolves.toBe(message('steps[1].timeout_seconds'));
  await expect(page.locator('#step-2-error').innerText()).resolves.toBe(message('steps[2]'));
  expect(await page.getByLabel('Step 1 URL').getAttribute('aria-invalid')).toBe('true');
  await expect(page.getByLabel('Step 1 URL').inputValue()).resolves.toBe('not a url');
  // The summary at the top links to each field.
  await page.getByRole('alert').getByRole('link', { name: 'Step 1 URL' }).click();
  await waitFor(async () => ((await page.evaluate('document.activeElement.id')) === 'step-0-url' ? true : undefined), { what: 'the focus on step-0-url' });
  expect(await accessibilityProblems(page)).toEqual([]);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'workflow-edit-errors.png'), fullPage: true });
  expect((await apiSteps(id)).map((s) => s.id)).toEqual(['build', 'deploy', 'review']);
});

it('keeps the steps as JSON beside the list: a changed JSON replaces the list, its messages on the fields', async () => {
  const id = await workflow('steps as json');
  const page = await f.signedInPage();
  await page.goto(`${f.base}/console/jobs/${id}/edit`);
  await page.getByText('Steps as JSON', { exact: true }).click();
  const json = JSON.parse(await page.getByLabel('Steps', { exact: true }).inputValue());
  expect(json).toEqual(await apiSteps(id));

  await page.getByLabel('Steps', { exact: true }).fill(JSON.stringify([{ id: 'one', type: 'http', url: 'ftp://example.com/' }]));
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('alert').waitFor();
  // The list now shows the JSON's steps, the API's message by the field it is about.
  expect(await ids(page)).toEqual(['one']);
  await expect(page.locator('#step-0-url-error').innerText()).resolves.toMatch(/http/);
  await page.getByLabel('Step 1 URL').fill(`${f.target.url}/one`);
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.waitForURL(/\?done=job-saved$/);
  expect(await apiSteps(id)).toMatchObject([{ id: 'one', type: 'http', url: `${f.target.url}/one` }]);

  // Pressing Enter in a field saves the form; it does not press a step's button.
  await page.getByRole('button', { name: 'Edit' }).click();
  await page.getByLabel('Step 1 ID').fill('first');
  await page.getByLabel('Step 1 ID').press('Enter');
  await page.waitForURL(/\?done=job-saved$/);
  expect(await apiSteps(id)).toMatchObject([{ id: 'first' }]);
});

it('fits the step list on a 390 px phone, with and without its scripts', async () => {
  const id = await workflow('steps on a phone');
  const page = await f.signedInPage(PHONE);
  await page.goto(`${f.base}/console/jobs/${id}/edit`);
  expect(await scrollsSideways(page)).toBe(false);
  expect(await accessibilityProblems(page)).toEqual([]);
  await page.locator('#steps-editor').screenshot({ path: path.join(SCREENSHOTS, 'workflow-steps-phone.png') });
  // Without the console's scripts every fieldset shows (axe needs script of its own, so the page's are blocked instead).
  await page.context().route(/\/console\/assets\/.*\.js$/, (route) => route.abort());
  await page.reload();
  expect(await page.getByLabel('URL', { exact: true }).isVisible()).toBe(true);
  expect(await scrollsSideways(page)).toBe(false);
  expect(await accessibilityProblems(page)).toEqual([]);
});

import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { approvalStep, aWorkflow, httpStep, launchChromium, repoRoot } from '@cronsvc/core/testing';
import { useWorkflowFixture } from './workflow-fixture.js';

// The review page in a real browser (Debian's chromium), at a phone's size. Screenshots are kept
// in test-output/ (git-ignored) for a person to look at.
const f = useWorkflowFixture();
const SCREENSHOTS = path.join(repoRoot, 'test-output', 'approval-page');
const HOSTILE_MESSAGE = 'Deploy <script>alert("x")</script> version {{context.version}} & "quote" <b>now</b>?';

let server: Server;
let base: string;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  server = f.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  f.target.handle((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end('{"version":"<v2>"}');
  });
});

/** A run waiting at its approval step; returns the execution id and the review page's URL on this server. */
async function waitingApproval(): Promise<{ id: string; review: string }> {
  const job = await f.createJob(
    aWorkflow(
      [httpStep('build', `${f.target.url}/build`, { extract: { version: '$.version' } }), approvalStep('review', HOSTILE_MESSAGE), httpStep('deploy', `${f.target.url}/deploy`)],
      { name: 'Release <img src=x onerror=alert(1)> & co' },
    ),
  );
  const id = await f.runNow(job.id);
  const waiting = await f.until(id, 'waiting');
  return { id, review: `${base}${new URL(waiting.waiting_payload.review_url).pathname}` };
}

async function phonePage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  page.on('dialog', () => {
    throw new Error('a script ran on the page');
  });
  return page;
}

it('shows the job, the message as text and what ran before, readable on a phone, and approves from the form', async () => {
  const { id, review } = await waitingApproval();
  const page = await phonePage();
  const response = await page.goto(review);
  expect(response?.status()).toBe(200);
  expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");

  await expect(page.locator('.message').innerText()).resolves.toBe('Deploy <script>alert("x")</script> version <v2> & "quote" <b>now</b>?');
  await expect(page.locator('h1').innerText()).resolves.toBe('Release <img src=x onerror=alert(1)> & co');
  expect(await page.locator('script, img, b').count()).toBe(0);
  await expect(page.locator('ol li').first().innerText()).resolves.toMatch(/^build \(http\) succeeded HTTP 200$/);
  // Nothing wider than the phone's screen.
  expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
  const approve = page.getByRole('button', { name: 'Approve' });
  const box = await approve.boundingBox();
  expect(box!.height).toBeGreaterThanOrEqual(44);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'review.png'), fullPage: true });

  await page.getByLabel('Comment (optional)').fill('looks good');
  await approve.click();
  await page.waitForLoadState();
  await expect(page.locator('.result').innerText()).resolves.toMatch(/^Approved/);
  await expect(page.locator('body').innerText()).resolves.toContain('The run continues with its next step.');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'approved.png'), fullPage: true });

  const done = await f.until(id, 'succeeded', 'failed');
  expect(done.status).toBe('succeeded');
  expect(done.step_executions[1]).toMatchObject({ decision: 'approved', input: { comment: 'looks good' } });

  // Back on the review page: the decision, and no buttons any more.
  await page.goto(review);
  await expect(page.locator('.result').innerText()).resolves.toMatch(/approved/);
  expect(await page.getByRole('button').count()).toBe(0);
  await page.context().close();
});

it('rejects from the form, and a decision made in a second tab afterwards gets a clear page', async () => {
  const { id, review } = await waitingApproval();
  const page = await phonePage();
  const other = await phonePage();
  await page.goto(review);
  await other.goto(review);
  await page.getByRole('button', { name: 'Reject' }).click();
  await page.waitForLoadState();
  await expect(page.locator('.result').innerText()).resolves.toMatch(/^Rejected/);
  await expect(page.locator('body').innerText()).resolves.toContain('The run stops here and is marked failed.');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'rejected.png'), fullPage: true });
  expect(await f.until(id, 'succeeded', 'failed')).toMatchObject({ status: 'failed', error_class: 'APPROVAL_REJECTED' });

  const late = other.waitForResponse((r) => r.url().endsWith('/approve'));
  await other.getByRole('button', { name: 'Approve' }).click();
  expect((await late).status()).toBe(409);
  await other.waitForLoadState();
  await expect(other.locator('.result').first().innerText()).resolves.toBe('Your decision was not recorded: this approval is already rejected.');
  await expect(other.locator('.result').nth(1).innerText()).resolves.toMatch(/rejected$/);
  expect(await other.getByRole('button').count()).toBe(0);
  await other.screenshot({ path: path.join(SCREENSHOTS, 'already-decided.png'), fullPage: true });
  await Promise.all([page.context().close(), other.context().close()]);
});

it('answers an unknown link with a 404 page', async () => {
  const page = await phonePage();
  const response = await page.goto(`${base}/v1/approvals/apr_unknown`);
  expect(response?.status()).toBe(404);
  await expect(page.locator('.result').innerText()).resolves.toBe('This approval link does not work');
  await page.context().close();
});

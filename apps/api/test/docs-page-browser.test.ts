import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { TEST_OUTPUT_DIR } from '@cronsvc/core/testing';
import { useApiApp } from './api-app.js';

// GET /docs in a real browser (Debian's chromium): swagger-ui renders the OpenAPI document from
// assets the service serves itself, under a CSP that forbids inline scripts.
const api = useApiApp();
let server: Server;
let base: string;
let browser: Browser;

beforeAll(async () => {
  server = api.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server.close(resolve));
});

it('renders every tag and operation of the document from the service alone, with no script error', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const elsewhere: string[] = [];
  const problems: string[] = [];
  await page.route('**/*', (route) => {
    if (route.request().url().startsWith(base)) return route.continue();
    elsewhere.push(route.request().url());
    return route.abort();
  });
  page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
  page.on('pageerror', (error) => problems.push(error.message));
  const res = await page.goto(`${base}/docs`);
  expect(res?.status()).toBe(200);
  expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
  await page.getByText('cron-service API', { exact: false }).first().waitFor({ timeout: 20_000 });
  await page.locator('.opblock').first().waitFor({ timeout: 20_000 });
  for (const tag of ['Jobs', 'Executions', 'Dead letters', 'Secrets', 'Notifications', 'Monitors', 'Public', 'Admin']) {
    await expect(page.locator('.opblock-tag', { hasText: tag }).count()).resolves.toBeGreaterThan(0);
  }
  expect(await page.locator('.opblock').count()).toBeGreaterThan(60);
  // One operation opened, as a reader would: its parameters, body and answers show.
  await page.locator('.opblock-summary', { hasText: '/v1/jobs/{id}/run-now' }).first().click();
  await page.getByText('The new execution, queued.').first().waitFor({ timeout: 10_000 });
  mkdirSync(TEST_OUTPUT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(TEST_OUTPUT_DIR, 'docs-page.png'), fullPage: false });
  await page.locator('.opblock.is-open').first().screenshot({ path: path.join(TEST_OUTPUT_DIR, 'docs-operation.png') });
  expect(elsewhere).toEqual([]);
  expect(problems).toEqual([]);
});

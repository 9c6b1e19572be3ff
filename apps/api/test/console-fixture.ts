import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { axeViolations, launchChromium, TEST_OUTPUT_DIR } from '@cronsvc/core/testing';
import { useWorkflowFixture, type WorkflowFixture } from './workflow-fixture.js';

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 900 };
export const SCREENSHOTS = path.join(TEST_OUTPUT_DIR, 'console');

export interface ConsoleFixture extends WorkflowFixture {
  /** The app listening on a local port, for the browser. */
  base: string;
  browser: Browser;
  /** A second workspace, whose objects the first must not reach. */
  other: { id: string; token: string; auth: { Authorization: string } };
  /** A browser page (its own cookies) signed in through the form with `token` (the workspace's by default). */
  signedInPage(viewport?: { width: number; height: number }, token?: string): Promise<Page>;
  /** A supertest agent signed in through the form, and the CSRF token of its session. */
  signedInAgent(token?: string): Promise<{ agent: request.Agent; csrf: string }>;
}

/** The hidden CSRF field of a console page. */
export function csrfOf(page: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(page);
  if (!match) throw new Error('no CSRF field in the page');
  return match[1];
}

/**
 * The hooks of a console test file: the step-driven fixture (database, Redis prefix, target,
 * executor, API, workspace and token) plus a listening server, one Chromium for the whole file
 * (unless `browser: false`) and a second workspace. Pages are opened by the tests and
 * closed with the browser.
 */
export function useConsole(options: Parameters<typeof useWorkflowFixture>[0] & { browser?: boolean } = {}): ConsoleFixture {
  const f = useWorkflowFixture(options) as ConsoleFixture;
  let server: Server;
  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    server = f.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    f.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (options.browser !== false) f.browser = await launchChromium();
    const other = await f.ctx.workspace('other');
    f.other = { ...other, auth: { Authorization: `Bearer ${other.token}` } };
  });
  afterAll(async () => {
    await f.browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  f.signedInPage = async (viewport = DESKTOP, token = f.token) => {
    const context = await f.browser.newContext({ viewport });
    const page = await context.newPage();
    await page.goto(`${f.base}/console/sign-in`);
    await page.getByLabel('API token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${f.base}/console/jobs`);
    return page;
  };

  f.signedInAgent = async (token = f.token) => {
    const agent = request.agent(f.app);
    const form = await agent.get('/console/sign-in');
    const signedIn = await agent.post('/console/sign-in').type('form').send({ _csrf: csrfOf(form.text), token });
    if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);
    const jobs = await agent.get('/console/jobs');
    return { agent, csrf: csrfOf(jobs.text) };
  };
  return f;
}

/** The serious and critical axe-core violations of the page, as readable lines (an empty list passes). */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  return (await axeViolations(page)).map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.join(', ')})`);
}

/** Whether the page is wider than its window (sideways scrolling). */
export const scrollsSideways = (page: Page) => page.evaluate('document.documentElement.scrollWidth > window.innerWidth') as Promise<boolean>;

import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { repoRoot } from './test-context.js';

/** Where tests write screenshots for a person to look at; ignored by git. */
export const TEST_OUTPUT_DIR = path.join(repoRoot, 'test-output');

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Debian's headless Chromium (/usr/bin/chromium, or CHROMIUM_PATH), as every browser test runs it. */
export async function launchChromium(): Promise<Browser> {
  // Loaded here, not at the top: most test files import the testing helpers and never a browser.
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/**
 * Renders an HTML document in headless Chromium (Debian's /usr/bin/chromium), saves a full-page
 * screenshot as test-output/<name>.png, and answers the JavaScript expression `inspect` evaluated
 * in the page, so a test can assert what a person would see (computed colours, visible text).
 */
export async function renderInBrowser(html: string, name: string, inspect: string, options: { width?: number } = {}): Promise<{ screenshot: string; seen: unknown }> {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: options.width ?? 700, height: 600 } });
    // Offline: an email must not need anything from the network to render.
    await page.route('**/*', (route) => route.abort());
    await page.setContent(html, { waitUntil: 'load' });
    mkdirSync(TEST_OUTPUT_DIR, { recursive: true });
    const screenshot = path.join(TEST_OUTPUT_DIR, `${name}.png`);
    await page.screenshot({ path: screenshot, fullPage: true });
    return { screenshot, seen: await page.evaluate(inspect) };
  } finally {
    await browser.close();
  }
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  /** CSS selectors of the offending elements. */
  nodes: string[];
}

let axeSource: string | undefined;

/**
 * The accessibility violations axe-core finds in the page as it stands, of the given impacts
 * (serious and critical by default). axe is evaluated through the DevTools protocol, which a
 * page's Content-Security-Policy does not block, so the page is checked with its real headers.
 */
export async function axeViolations(page: Page, impacts: string[] = ['serious', 'critical']): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(axeSource);
  const run = `(async () => {
    const { violations } = await axe.run(document, { resultTypes: ['violations'] });
    return violations
      .filter((v) => ${JSON.stringify(impacts)}.includes(v.impact))
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  })()`;
  return (await page.evaluate(run)) as AxeViolation[];
}

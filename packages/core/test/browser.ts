import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './test-context.js';

/** Where tests write screenshots for a person to look at; ignored by git. */
export const TEST_OUTPUT_DIR = path.join(repoRoot, 'test-output');

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/**
 * Renders an HTML document in headless Chromium (Debian's /usr/bin/chromium), saves a full-page
 * screenshot as test-output/<name>.png, and answers the JavaScript expression `inspect` evaluated
 * in the page, so a test can assert what a person would see (computed colours, visible text).
 */
export async function renderInBrowser(html: string, name: string, inspect: string, options: { width?: number } = {}): Promise<{ screenshot: string; seen: unknown }> {
  // Loaded here, not at the top: most test files import the testing helpers and never a browser.
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
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

import path from 'node:path';
import { IMPORT_NOTES } from '@cronsvc/core';
import { accessibilityProblems, csrfOf, PHONE, SCREENSHOTS, scrollsSideways, useConsole } from './console-fixture.js';

// Importing a crontab from the console, in Chromium: the jobs it made, the lines it refused and
// its notes (times are UTC; names without the URL's query string), as POST /v1/jobs/import says.
const f = useConsole();
const jobCount = async (): Promise<number> => (await f.get('/v1/jobs')).body.total;

it('imports a crontab from the Jobs page and shows the jobs made, the lines refused and the notes', async () => {
  const page = await f.signedInPage();
  await page.getByRole('link', { name: 'Import a crontab' }).click();
  await page.waitForURL(`${f.base}/console/jobs/import`);
  const crontab = [
    '# from the old server',
    `*/15 * * * * curl -fsS '${f.target.url}/tick?token=s3cr3t' > /dev/null`,
    '0 3 * * * /usr/local/bin/backup.sh',
    '61 * * * * https://example.com/never',
  ].join('\n');
  await page.getByLabel('Crontab').fill(crontab);
  await page.getByLabel('Default URL').fill(`${f.target.url}/backup`);
  await page.getByRole('button', { name: 'Import' }).click();

  await page.getByRole('heading', { name: 'Created (2)' }).waitFor();
  const created = await page.locator('ul.imported a').allInnerTexts();
  expect(created).toEqual([`*/15 * * * * ${f.target.url}/tick`, `0 3 * * * ${f.target.url}/backup`]);
  await expect(page.locator('ul.refused').innerText()).resolves.toMatch(/^Line 4: 61 \* \* \* \* https:\/\/example\.com\/never\n.*minute/);
  await expect(page.getByRole('note').locator('p').allInnerTexts()).resolves.toEqual([IMPORT_NOTES.utc, IMPORT_NOTES.names]);
  expect(await page.content()).not.toContain('s3cr3t');
  expect((await f.get('/v1/jobs?name=tick')).body.data[0].request.url).toBe(`${f.target.url}/tick?token=s3cr3t`);
  // The form is emptied once jobs were made, so a second click does not make them again.
  await expect(page.getByLabel('Crontab').inputValue()).resolves.toBe('');
  expect(await accessibilityProblems(page)).toEqual([]);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'import-done.png'), fullPage: true });

  await page.getByRole('link', { name: `*/15 * * * * ${f.target.url}/tick` }).click();
  await page.getByRole('heading', { level: 1 }).waitFor();
  expect(page.url()).toMatch(/\/console\/jobs\/job_/);
});

it('shows the API’s message next to a field it refuses, keeps what was typed, and fits a phone', async () => {
  const page = await f.signedInPage(PHONE);
  const before = await jobCount();
  await page.goto(`${f.base}/console/jobs/import`);
  await page.getByLabel('Crontab').fill('@daily');
  await page.getByLabel('Default URL').fill('not a url');
  await page.getByRole('button', { name: 'Import' }).click();
  await page.getByRole('alert').waitFor();
  await expect(page.locator('#f-default-url-error').innerText()).resolves.toMatch(/uri|URL/i);
  await expect(page.getByLabel('Crontab').inputValue()).resolves.toBe('@daily');
  expect(await jobCount()).toBe(before);
  expect(await scrollsSideways(page)).toBe(false);
  expect(await accessibilityProblems(page)).toEqual([]);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'import-refused-phone.png'), fullPage: true });
});

it('refuses a post without the CSRF token, importing nothing', async () => {
  const { agent, csrf } = await f.signedInAgent();
  const before = await jobCount();
  const form = await agent.get('/console/jobs/import');
  expect(csrfOf(form.text)).toBe(csrf);
  const refused = await agent.post('/console/jobs/import').type('form').send({ crontab: `@daily ${f.target.url}/x` });
  expect(refused.status).toBe(403);
  expect(await jobCount()).toBe(before);
});

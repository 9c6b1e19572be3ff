import { parseCrontab } from './import-crontab.js';

const url = 'https://example.com/a';

describe('parseCrontab', () => {
  it('skips blank lines and # comments, also indented ones, and numbers lines from 1 counting them', () => {
    const entries = parseCrontab(['# nightly jobs', '', '   ', '  # indented comment', `0 3 * * * ${url}`].join('\n'));
    expect(entries).toEqual([{ line: 5, text: `0 3 * * * ${url}`, expression: '0 3 * * *', url }]);
  });

  it('reads five fields then the URL, collapsing runs of spaces and tabs in the expression', () => {
    expect(parseCrontab(`*/5\t1-3  *   JAN mon-fri   ${url}`)).toEqual([
      { line: 1, text: `*/5\t1-3  *   JAN mon-fri   ${url}`, expression: '*/5 1-3 * JAN mon-fri', url },
    ]);
  });

  it('reads a macro as the whole schedule', () => {
    expect(parseCrontab(`@daily ${url}`)).toEqual([{ line: 1, text: `@daily ${url}`, expression: '@daily', url }]);
  });

  it('uses the default URL for a line with only a schedule, and keeps a line URL over it', () => {
    const entries = parseCrontab(`@hourly\n0 0 * * 0 ${url}`, 'https://default.example.com/');
    expect(entries.map((e) => ('url' in e ? e.url : e.error))).toEqual(['https://default.example.com/', url]);
  });

  it('reports a line with only a schedule when there is no default URL', () => {
    expect(parseCrontab('0 3 * * *')).toEqual([{ line: 1, text: '0 3 * * *', error: 'has no URL and no default_url was given' }]);
  });

  it('reports words after the URL, as a shell command line would have', () => {
    const [entry] = parseCrontab(`0 3 * * * curl -s ${url}`);
    expect(entry).toMatchObject({ error: expect.stringContaining('single URL') });
  });

  it('reports a URL that comes before five fields are complete', () => {
    const [entry] = parseCrontab(`0 3 * * ${url}`, url);
    expect(entry).toMatchObject({ error: 'expected 5 cron fields before the URL' });
  });

  it('reports environment settings such as MAILTO instead of parsing them as a schedule', () => {
    const [entry] = parseCrontab('MAILTO=ops@example.com', url);
    expect(entry).toMatchObject({ line: 1, error: expect.stringContaining('environment settings') });
  });

  it('accepts CRLF line endings and a trailing newline without an extra line', () => {
    const entries = parseCrontab(`@daily ${url}\r\n@weekly ${url}\r\n`);
    expect(entries.map((e) => [e.line, e.text])).toEqual([
      [1, `@daily ${url}`],
      [2, `@weekly ${url}`],
    ]);
  });

  it('leaves cron validation to job creation, passing a bad expression through', () => {
    expect(parseCrontab(`61 * * * * ${url}`)).toEqual([{ line: 1, text: `61 * * * * ${url}`, expression: '61 * * * *', url }]);
  });
});

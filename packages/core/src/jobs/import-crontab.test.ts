import { parseCrontab, urlForName } from './import-crontab.js';

const url = 'https://example.com/a';

describe('parseCrontab', () => {
  it('skips blank lines and # comments, also indented ones, and numbers lines from 1 counting them', () => {
    const entries = parseCrontab(['# nightly jobs', '', '   ', '  # indented comment', `0 3 * * * ${url}`].join('\n'));
    expect(entries).toEqual([{ line: 5, text: `0 3 * * * ${url}`, expression: '0 3 * * *', request: { url } }]);
  });

  it('reads five fields then the URL, collapsing runs of spaces and tabs in the expression', () => {
    expect(parseCrontab(`*/5\t1-3  *   JAN mon-fri   ${url}`)).toEqual([
      { line: 1, text: `*/5\t1-3  *   JAN mon-fri   ${url}`, expression: '*/5 1-3 * JAN mon-fri', request: { url } },
    ]);
  });

  it('reads a macro as the whole schedule', () => {
    expect(parseCrontab(`@daily ${url}`)).toEqual([{ line: 1, text: `@daily ${url}`, expression: '@daily', request: { url } }]);
  });

  it('uses the default URL for a line with only a schedule, and keeps a line URL over it', () => {
    const entries = parseCrontab(`@hourly\n0 0 * * 0 ${url}`, 'https://default.example.com/');
    expect(entries.map((e) => ('request' in e ? e.request.url : e.error))).toEqual(['https://default.example.com/', url]);
  });

  it('reports a line with only a schedule when there is no default URL', () => {
    expect(parseCrontab('0 3 * * *')).toEqual([{ line: 1, text: '0 3 * * *', error: 'has no URL and no default_url was given' }]);
  });

  it('takes the URL of a curl line, dropping options that only concern the output and the redirections', () => {
    const [entry] = parseCrontab(`*/15 * * * * curl -fsS -m 10 --retry 3 '${url}?x=1&y=2' > /dev/null 2>&1`);
    expect(entry).toMatchObject({ expression: '*/15 * * * *', request: { url: `${url}?x=1&y=2`, method: 'GET', headers: {}, body: null, timeout_seconds: 10 } });
  });

  it('takes the method, headers and body of a curl line, quoting as the shell reads it', () => {
    const [entry] = parseCrontab(`0 * * * * curl -sS -X PUT -H 'Authorization: Bearer abc' -H "Content-Type: application/json" -d '{"a": "b c"}' ${url}`);
    expect(entry).toMatchObject({
      request: { url, method: 'PUT', headers: { Authorization: 'Bearer abc', 'Content-Type': 'application/json' }, body: '{"a": "b c"}' },
    });
  });

  it('reads a wget line', () => {
    const [entry] = parseCrontab(`@hourly /usr/bin/wget -qO- --header='X-Key: 1' --post-data 'a=1' ${url} >/dev/null`);
    expect(entry).toMatchObject({ request: { url, method: 'POST', headers: { 'X-Key': '1', 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'a=1' } });
  });

  it("follows cron's % rule: \\% is a percent sign, an unescaped % ends the command", () => {
    const [entry] = parseCrontab(`0 3 * * * curl https://example.com/a\\%20b %some stdin`);
    expect(entry).toMatchObject({ request: { url: 'https://example.com/a%20b' } });
  });

  it('makes a job for default_url from a line whose command is not curl or wget, and reports it without one', () => {
    const text = '0 3 * * * /usr/local/bin/backup.sh --full';
    expect(parseCrontab(text, 'https://default.example.com/')).toEqual([{ line: 1, text, expression: '0 3 * * *', request: { url: 'https://default.example.com/' } }]);
    expect(parseCrontab(text)).toEqual([
      { line: 1, text, error: 'the command runs /usr/local/bin/backup.sh, not curl or wget; give default_url to call a URL on this schedule instead' },
    ]);
  });

  it('reports a curl line it cannot turn into a job, also with a default URL', () => {
    const [entry] = parseCrontab(`0 3 * * * curl -F file=@x.txt ${url}`, 'https://default.example.com/');
    expect(entry).toMatchObject({ error: 'curl -F sends a form (multipart), which a job cannot do' });
  });

  it('accepts a comment after a URL and reports words after it', () => {
    expect(parseCrontab(`0 3 * * * ${url} # nightly`)[0]).toMatchObject({ request: { url } });
    expect(parseCrontab(`0 3 * * * ${url} now`)[0]).toMatchObject({ error: 'expected a single URL after the schedule, or a curl or wget command' });
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
    expect(parseCrontab(`61 * * * * ${url}`)).toEqual([{ line: 1, text: `61 * * * * ${url}`, expression: '61 * * * *', request: { url } }]);
  });
});

describe('urlForName', () => {
  it.each([
    ['https://example.com/hook?token=abc', 'https://example.com/hook'],
    ['https://user:pass@example.com:8443/a/b?x=1#top', 'https://example.com:8443/a/b'],
    ['http://token@example.com', 'http://example.com'],
    ['https://example.com/a@b/c', 'https://example.com/a@b/c'],
    ['https://example.com/path', 'https://example.com/path'],
    ['not a url?q=1', 'not a url'],
  ])('shows %s as %s', (url, shown) => {
    expect(urlForName(url)).toBe(shown);
  });
});

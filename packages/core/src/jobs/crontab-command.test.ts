import { readCommand } from './crontab-command.js';

const url = 'https://example.com/task';
const requestOf = (command: string) => {
  const read = readCommand(command);
  if (!('request' in read)) throw new Error(JSON.stringify(read));
  return read.request;
};

describe('readCommand: curl', () => {
  it('reads glued short options, the time limit and the URL', () => {
    expect(requestOf(`curl -fsSLm 7.5 ${url}`)).toEqual({ url, method: 'GET', headers: {}, body: null, timeout_seconds: 8 });
  });

  it('sends data as a form by default, POST unless -X says otherwise, several -d joined with &', () => {
    expect(requestOf(`curl -d a=1 --data b=2 ${url}`)).toEqual({
      url, method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'a=1&b=2',
    });
    expect(requestOf(`curl -XPATCH --data-urlencode 'q=a b' ${url}`)).toMatchObject({ method: 'PATCH', body: 'q=a%20b' });
  });

  it('sends --json as JSON, and -G data in the query', () => {
    expect(requestOf(`curl --json '{"a":1}' ${url}`)).toEqual({
      url, method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: '{"a":1}',
    });
    expect(requestOf(`curl -G -d q=1 ${url}?p=2`)).toMatchObject({ url: `${url}?p=2&q=1`, method: 'GET', body: null });
  });

  it('turns credentials, the user agent, the referer and cookies into headers', () => {
    expect(requestOf(`curl -u ops:s3cret -A bot/1 -e https://ref.example.com/ -b 'a=1; b=2' ${url}`).headers).toEqual({
      Authorization: `Basic ${Buffer.from('ops:s3cret').toString('base64')}`,
      'User-Agent': 'bot/1',
      Referer: 'https://ref.example.com/',
      Cookie: 'a=1; b=2',
    });
  });

  it('keeps curl piped on (its output goes elsewhere) but refuses more commands after it', () => {
    expect(requestOf(`curl -s ${url} | logger -t cron`).url).toBe(url);
    expect(readCommand(`curl -s ${url} && touch /tmp/done`)).toEqual({ error: 'runs more commands after curl (&&), which a job cannot do; import the curl call on a line of its own' });
  });

  it('refuses what a job cannot do', () => {
    expect(readCommand(`curl -d @body.json ${url}`)).toEqual({ error: 'curl -d @body.json reads the body from a file, which a job cannot do; put the body in the job' });
    expect(readCommand(`curl -I ${url}`)).toEqual({ error: 'curl -I makes a HEAD request, which a job cannot do' });
    expect(readCommand(`curl -H "Authorization: Bearer $TOKEN" ${url}`)).toEqual({
      error: 'uses shell expansion ($TOKEN), which a job cannot do; write the value in, or use {{secret.NAME}} in the job',
    });
    expect(readCommand('curl -s')).toEqual({ error: 'curl is given no URL' });
    expect(readCommand(`curl ${url} ${url}/2`)).toEqual({ error: 'curl is given 2 URLs; a job calls one' });
    expect(readCommand('curl example.com')).toEqual({ error: 'curl is given "example.com", which is not an http or https URL' });
  });
});

describe('readCommand: wget', () => {
  it('reads --name=value and glued short options', () => {
    expect(requestOf(`wget -qO- --method=DELETE --header='X-A: 1' -T 30 ${url}`)).toEqual({ url, method: 'DELETE', headers: { 'X-A': '1' }, body: null, timeout_seconds: 30 });
  });

  it('reads a body and credentials', () => {
    expect(requestOf(`wget --method=PUT --body-data='{}' --header 'Content-Type: application/json' --user ops --password pw ${url}`)).toEqual({
      url, method: 'PUT', headers: { 'Content-Type': 'application/json', Authorization: `Basic ${Buffer.from('ops:pw').toString('base64')}` }, body: '{}',
    });
  });

  it('refuses a file upload or a recursive download', () => {
    expect(readCommand(`wget --post-file=data.txt ${url}`)).toEqual({ error: 'wget --post-file sends a file, which a job cannot do' });
    expect(readCommand(`wget -r ${url}`)).toEqual({ error: 'wget -r downloads recursively, which a job cannot do' });
  });
});

describe('readCommand: other commands', () => {
  it('says which program runs instead, environment settings and variables in other commands included', () => {
    expect(readCommand('LANG=C /opt/backup.sh $HOME')).toEqual({ other: 'runs /opt/backup.sh, not curl or wget' });
    expect(readCommand('cd /srv && curl https://example.com/')).toEqual({ other: 'runs cd, not curl or wget' });
  });
});

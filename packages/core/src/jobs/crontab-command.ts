import { parse, type ParseEntry } from 'shell-quote';

/**
 * The command part of a crontab line, read as the shell would and, when it is one `curl` or
 * `wget` call, turned into the request it makes: the commonest real crontab line is
 * `*\/15 * * * * curl -fsS https://example.com/task > /dev/null`. Quoting, escapes, `#`
 * comments and redirections follow the shell (through shell-quote); the options that change
 * the request (method, headers, body, credentials, time limit) are taken, those that only change
 * what curl does with the answer are ignored, and those a job cannot do (uploading a file,
 * a form) are refused.
 */
export interface CommandRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | null;
  timeout_seconds?: number;
}

export type CommandReading =
  | { request: CommandRequest }
  /** Not a single curl or wget call: another program, or several commands. */
  | { other: string }
  /** A curl or wget call that cannot become a job, and why. */
  | { error: string };

const REDIRECTIONS = new Set(['>', '>>', '<', '>&', '<&', '>|', '&>', '&>>', '<<', '<<<']);
const MAX_TIMEOUT_SECONDS = 300;

/** Cron's own rule: an unescaped `%` ends the command (what follows is its stdin); `\%` is a `%`. */
function cronCommand(text: string): string {
  const end = text.search(/(?<!\\)%/);
  return (end === -1 ? text : text.slice(0, end)).replace(/\\%/g, '%');
}

/** The words of the first command, and the operator that ends it (`&&`, `|`, ...) if another command follows. */
function words(command: string): { words: string[]; then?: string; expansion?: string } {
  const variables: string[] = [];
  // A file descriptor glued to a redirection (`2>&1`) is part of it, not a word of the command.
  const text = cronCommand(command).replace(/(^|\s)\d+(?=[<>])/g, '$1');
  const tokens: ParseEntry[] = parse(text, (name) => {
    variables.push(name);
    return `$${name}`;
  });
  const out: string[] = [];
  let then: string | undefined;
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i];
    if (typeof token === 'string') out.push(token);
    else if ('comment' in token) break;
    else if (token.op === 'glob') out.push(token.pattern);
    else if (REDIRECTIONS.has(token.op)) i += 1;
    else {
      then = token.op;
      break;
    }
  }
  const expansion = variables.length > 0 ? `$${variables[0]}` : out.find((w) => w.includes('`') || w.includes('$('));
  while (out.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(out[0])) out.shift();
  return { words: out, then, expansion };
}

/** An option's name and its value, from `--name value`, `--name=value`, `-Xvalue` or `-X value`. */
interface Options {
  /** Options that take a value, by every name they have. */
  valued: Set<string>;
  /** Whether `--name=value` is a way of writing a value (wget), besides `--name value` (both). */
  longEquals: boolean;
}

type Parsed = { options: [string, string | true][]; positional: string[] };

function parseArgs(args: string[], { valued, longEquals }: Options): Parsed {
  const parsed: Parsed = { options: [], positional: [] };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    if (arg === '--') {
      parsed.positional.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const eq = longEquals ? arg.indexOf('=') : -1;
      const name = eq === -1 ? arg : arg.slice(0, eq);
      if (eq !== -1) parsed.options.push([name, arg.slice(eq + 1)]);
      else if (valued.has(name)) parsed.options.push([name, args[++i] ?? '']);
      else parsed.options.push([name, true]);
    } else if (arg.startsWith('-') && arg.length > 1) {
      // Short options glue together (`-fsS`, `-qO-`); one that takes a value takes the rest.
      for (let j = 1; j < arg.length; j += 1) {
        const name = `-${arg[j]}`;
        if (!valued.has(name)) {
          parsed.options.push([name, true]);
          continue;
        }
        parsed.options.push([name, j + 1 < arg.length ? arg.slice(j + 1) : (args[++i] ?? '')]);
        break;
      }
    } else parsed.positional.push(arg);
  }
  return parsed;
}

function header(line: string): [string, string] | null {
  const colon = line.indexOf(':');
  // `Name;` is curl's way of sending an empty header; `Name:` alone removes one curl would add.
  if (colon === -1) return line.endsWith(';') ? [line.slice(0, -1).trim(), ''] : null;
  const value = line.slice(colon + 1).trim();
  return value === '' ? null : [line.slice(0, colon).trim(), value];
}

const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;
const timeoutOf = (value: string) => (Number.isFinite(Number(value)) ? Math.min(MAX_TIMEOUT_SECONDS, Math.max(1, Math.ceil(Number(value)))) : undefined);

const CURL_VALUED = [
  '-X', '--request', '-H', '--header', '-d', '--data', '--data-raw', '--data-binary', '--data-ascii', '--data-urlencode', '--json',
  '-m', '--max-time', '--connect-timeout', '-o', '--output', '-A', '--user-agent', '-e', '--referer', '-b', '--cookie', '-c', '--cookie-jar',
  '-u', '--user', '-w', '--write-out', '-x', '--proxy', '-U', '--proxy-user', '-T', '--upload-file', '-F', '--form', '--form-string',
  '-K', '--config', '-E', '--cert', '--key', '--cacert', '--capath', '-r', '--range', '--retry', '--retry-delay', '--retry-max-time',
  '--limit-rate', '-y', '--speed-time', '-Y', '--speed-limit', '-z', '--time-cond', '-C', '--continue-at', '--resolve', '--connect-to',
  '--interface', '--dns-servers', '--url', '--output-dir', '--max-filesize', '--expect100-timeout', '--keepalive-time', '--trace',
  '--trace-ascii', '--stderr', '--unix-socket', '--oauth2-bearer', '--ciphers', '--noproxy', '--proto', '--proto-redir', '--local-port',
  '--url-query', '--variable', '--aws-sigv4', '-Q', '--quote', '-P', '--ftp-port', '-t', '--telnet-option', '--max-redirs',
];
const CURL_REFUSED: Record<string, string> = {
  '-F': 'sends a form (multipart)', '--form': 'sends a form (multipart)', '--form-string': 'sends a form (multipart)',
  '-T': 'uploads a file', '--upload-file': 'uploads a file', '-K': 'reads its options from a file', '--config': 'reads its options from a file',
  '-I': 'makes a HEAD request', '--head': 'makes a HEAD request', '--unix-socket': 'calls a Unix socket', '--variable': 'uses variables',
};

function fromCurl(args: string[]): CommandReading {
  const { options, positional } = parseArgs(args, { valued: new Set(CURL_VALUED), longEquals: false });
  const headers: Record<string, string> = {};
  const data: string[] = [];
  const urls = [...positional];
  let method: string | undefined;
  let get = false;
  let timeout: number | undefined;
  for (const [name, value] of options) {
    if (name in CURL_REFUSED) return { error: `curl ${name} ${CURL_REFUSED[name]}, which a job cannot do` };
    const text = typeof value === 'string' ? value : '';
    if (['-d', '--data', '--data-ascii', '--data-binary', '--json'].includes(name) && text.startsWith('@')) {
      return { error: `curl ${name} ${text} reads the body from a file, which a job cannot do; put the body in the job` };
    }
    switch (name) {
      case '-X': case '--request': method = text; break;
      case '-H': case '--header': { const h = header(text); if (h) headers[h[0]] = h[1]; break; }
      case '-d': case '--data': case '--data-ascii': case '--data-binary': case '--data-raw': data.push(text); break;
      case '--data-urlencode': {
        const eq = text.indexOf('=');
        data.push(eq === -1 ? encodeURIComponent(text) : `${text.slice(0, eq + 1)}${encodeURIComponent(text.slice(eq + 1))}`);
        break;
      }
      case '--json':
        data.push(text);
        headers['Content-Type'] ??= 'application/json';
        headers.Accept ??= 'application/json';
        break;
      case '-G': case '--get': get = true; break;
      case '-m': case '--max-time': timeout = timeoutOf(text); break;
      case '-A': case '--user-agent': headers['User-Agent'] = text; break;
      case '-e': case '--referer': headers.Referer = text; break;
      case '-b': case '--cookie':
        if (!text.includes('=')) return { error: `curl ${name} ${text} reads cookies from a file, which a job cannot do; give them as a Cookie header` };
        headers.Cookie = text;
        break;
      case '-u': case '--user': headers.Authorization = basic(text); break;
      case '--oauth2-bearer': headers.Authorization = `Bearer ${text}`; break;
      case '--url': urls.push(text); break;
      default: break;
    }
  }
  return request('curl', urls, { method, headers, data, get, timeout });
}

const WGET_VALUED = [
  '-O', '--output-document', '-o', '--output-file', '-a', '--append-output', '-t', '--tries', '-T', '--timeout', '-w', '--wait',
  '-U', '--user-agent', '-P', '--directory-prefix', '-e', '--execute', '-i', '--input-file', '-B', '--base', '-Q', '--quota', '-l', '--level',
  '-A', '--accept', '-R', '--reject', '-D', '--domains', '-I', '--include-directories', '-X', '--exclude-directories', '--header', '--method',
  '--post-data', '--body-data', '--post-file', '--body-file', '--user', '--password', '--http-user', '--http-password', '--referer',
  '--load-cookies', '--save-cookies', '--connect-timeout', '--read-timeout', '--dns-timeout', '--waitretry', '--limit-rate', '--bind-address',
  '--ca-certificate', '--certificate', '--private-key', '--secure-protocol', '--progress', '--local-encoding', '--remote-encoding',
];
const WGET_REFUSED: Record<string, string> = {
  '--post-file': 'sends a file', '--body-file': 'sends a file', '-i': 'reads its URLs from a file', '--input-file': 'reads its URLs from a file',
  '-r': 'downloads recursively', '--recursive': 'downloads recursively', '-m': 'mirrors a site', '--mirror': 'mirrors a site',
};

function fromWget(args: string[]): CommandReading {
  const { options, positional } = parseArgs(args, { valued: new Set(WGET_VALUED), longEquals: true });
  const headers: Record<string, string> = {};
  const data: string[] = [];
  let method: string | undefined;
  let timeout: number | undefined;
  let user: string | undefined;
  let password = '';
  for (const [name, value] of options) {
    if (name in WGET_REFUSED) return { error: `wget ${name} ${WGET_REFUSED[name]}, which a job cannot do` };
    const text = typeof value === 'string' ? value : '';
    switch (name) {
      case '--method': method = text; break;
      case '--header': { const h = header(text); if (h) headers[h[0]] = h[1]; break; }
      case '--post-data': data.push(text); method ??= 'POST'; break;
      case '--body-data': data.push(text); break;
      case '-T': case '--timeout': timeout = timeoutOf(text); break;
      case '-U': case '--user-agent': headers['User-Agent'] = text; break;
      case '--referer': headers.Referer = text; break;
      case '--user': case '--http-user': user = text; break;
      case '--password': case '--http-password': password = text; break;
      default: break;
    }
  }
  if (user !== undefined) headers.Authorization = basic(`${user}:${password}`);
  return request('wget', positional, { method, headers, data, get: false, timeout });
}

interface Pieces {
  method: string | undefined;
  headers: Record<string, string>;
  data: string[];
  get: boolean;
  timeout: number | undefined;
}

function request(program: string, urls: string[], pieces: Pieces): CommandReading {
  if (urls.length === 0) return { error: `${program} is given no URL` };
  if (urls.length > 1) return { error: `${program} is given ${urls.length} URLs; a job calls one` };
  const [url] = urls;
  if (!/^https?:\/\//i.test(url)) return { error: `${program} is given "${url}", which is not an http or https URL` };
  const body = pieces.data.length > 0 ? pieces.data.join('&') : null;
  const hasContentType = Object.keys(pieces.headers).some((name) => name.toLowerCase() === 'content-type');
  if (pieces.get || body === null) {
    const query = pieces.get && body !== null ? `${url.includes('?') ? '&' : '?'}${body}` : '';
    return { request: { url: `${url}${query}`, method: (pieces.method ?? 'GET').toUpperCase(), headers: pieces.headers, body: null, ...timeout(pieces) } };
  }
  // As curl and wget send a body they are given: a form, unless a Content-Type says otherwise.
  const headers = hasContentType ? pieces.headers : { ...pieces.headers, 'Content-Type': 'application/x-www-form-urlencoded' };
  return { request: { url, method: (pieces.method ?? 'POST').toUpperCase(), headers, body, ...timeout(pieces) } };
}

const timeout = (pieces: Pieces) => (pieces.timeout === undefined ? {} : { timeout_seconds: pieces.timeout });

/**
 * What the command of a crontab line asks for. A curl or wget piped on (`| logger`) is still
 * that call: only its output goes elsewhere. One followed by other commands (`&&`, `;`) is not
 * turned into a job, since they would not run.
 */
export function readCommand(command: string): CommandReading {
  const read = words(command);
  const [program, ...args] = read.words;
  const name = program?.split('/').pop();
  if (name !== 'curl' && name !== 'wget') return { other: program ? `runs ${program}, not curl or wget` : 'has no command' };
  if (read.expansion) {
    return { error: `uses shell expansion (${read.expansion}), which a job cannot do; write the value in, or use {{secret.NAME}} in the job` };
  }
  if (read.then && read.then !== '|' && read.then !== '|&') {
    return { error: `runs more commands after ${name} (${read.then}), which a job cannot do; import the ${name} call on a line of its own` };
  }
  return name === 'curl' ? fromCurl(args) : fromWget(args);
}

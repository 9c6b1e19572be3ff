import { createInterface } from 'node:readline/promises';

/** Ctrl-C at a prompt. */
export class Interrupted extends Error {}

/** All of stdin (a pipe or a file), as text. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Lines of a non-interactive stdin, read one at a time across several prompts: `login` reads
 * its URL and token this way when they are piped in.
 */
let pipedLines: Promise<string[]> | undefined;
async function nextPipedLine(): Promise<string> {
  pipedLines ??= readStdin().then((text) => text.split(/\r?\n/));
  const lines = await pipedLines;
  return lines.shift() ?? '';
}

/** A question on stderr (stdout stays for results), the answer echoed. */
export async function ask(question: string): Promise<string> {
  if (!process.stdin.isTTY) return (await nextPipedLine()).trim();
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

/** A question whose answer is not echoed (tokens, secret values); a piped stdin gives its next line. */
export async function askHidden(question: string): Promise<string> {
  if (!process.stdin.isTTY) return nextPipedLine();
  process.stderr.write(question);
  const stdin = process.stdin;
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise<string>((resolve, reject) => {
    let value = '';
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish();
        if (ch === '\u0003') return finish(new Interrupted('interrupted'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

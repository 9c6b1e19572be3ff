import { InvalidArgumentError, type Command } from 'commander';
import type { ListEnvelope, PageQuery } from '@cronsvc/contracts';
import { readFile } from 'node:fs/promises';
import { UsageError } from './errors.js';
import { readStdin } from './prompt.js';

/** An option parser for whole numbers, so `--limit ten` is a usage error (exit 2). */
export const int = (value: string): number => {
  if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError('not a whole number.');
  return Number(value);
};

/** Values of a repeatable option, in order. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export interface PageFlags {
  limit?: number;
  offset?: number;
  all?: boolean;
}

export const withPaging = (command: Command): Command =>
  command
    .option('--limit <n>', 'how many to show, 1 to 100 (the API defaults to 50)', int)
    .option('--offset <n>', 'how many to skip', int)
    .option('--all', 'every page, fetched 100 at a time');

const PAGE = 100;

/**
 * One page, or with --all every page from --offset on. With --all the envelope holds every item,
 * with `total` as the first page counted it.
 */
export async function fetchPages<T>(fetchPage: (query: PageQuery) => Promise<ListEnvelope<T>>, flags: PageFlags): Promise<ListEnvelope<T>> {
  if (!flags.all) return fetchPage({ limit: flags.limit, offset: flags.offset });
  const start = flags.offset ?? 0;
  const data: T[] = [];
  let total = 0;
  for (let offset = start; ; ) {
    const page = await fetchPage({ limit: PAGE, offset });
    if (offset === start) total = page.total;
    data.push(...page.data);
    offset += page.data.length;
    if (page.data.length === 0 || offset >= page.total) break;
  }
  return { data, total, limit: data.length, offset: start };
}

/** "3 of 120 shown; --offset 3 or --all for the rest", when a list has more than it shows. */
export function pageNote(page: ListEnvelope<unknown>): string {
  const end = page.offset + page.data.length;
  if (end >= page.total || page.data.length === 0) return '';
  return `\n${page.offset + 1}-${end} of ${page.total}; --offset ${end} or --all for more`;
}

/** A JSON file, or stdin for `-`. */
export async function readJsonInput(file: string): Promise<unknown> {
  const text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file === '-' ? 'stdin' : file} is not JSON: ${(error as Error).message}`);
  }
}

/** A JSON value given on the command line. */
export function parseJsonFlag(name: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`${name} must be JSON`);
  }
}

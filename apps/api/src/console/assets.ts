import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { CONSOLE_SCRIPT } from './console-script.js';
import { CONSOLE_STYLE } from './console-style.js';
import { paths } from './paths.js';

export interface Asset {
  type: string;
  body: string;
}

export interface Assets {
  /** By file name, as requested under the console's assets path. */
  files: Map<string, Asset>;
  urls: { style: string; script: string; htmx: string };
}

// A name that changes with the content, so browsers may keep each file for a year.
const named = (base: string, ext: string, body: string) => `${base}.${createHash('sha256').update(body).digest('hex').slice(0, 12)}.${ext}`;

/**
 * The files the pages load: our stylesheet and script, and htmx as its package ships it (read
 * once from node_modules; nothing comes from another host).
 */
export function loadAssets(): Assets {
  const htmx = readFileSync(createRequire(import.meta.url).resolve('htmx.org/dist/htmx.min.js'), 'utf8');
  const list: [string, Asset][] = [
    [named('console', 'css', CONSOLE_STYLE), { type: 'text/css; charset=utf-8', body: CONSOLE_STYLE }],
    [named('console', 'js', CONSOLE_SCRIPT), { type: 'text/javascript; charset=utf-8', body: CONSOLE_SCRIPT }],
    [named('htmx', 'js', htmx), { type: 'text/javascript; charset=utf-8', body: htmx }],
  ];
  const [style, script, htmxFile] = list.map(([name]) => paths.asset(name));
  return { files: new Map(list), urls: { style, script, htmx: htmxFile } };
}

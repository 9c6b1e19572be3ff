import type { Command } from 'commander';
import { UsageError } from './errors.js';

/** This machine: a request to it does not cross a network, so plain http:// is fine there. */
function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Refuses a plain http:// URL to another machine unless --insecure was given: the API token (or
 * the ping token in a ping URL) would cross the network unencrypted. Usage error (exit 2).
 */
export function requireSecureUrl(url: string, insecure: boolean | undefined): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`the API URL is not a URL (got "${url}")`);
  }
  if (parsed.protocol !== 'http:' || insecure || isLoopback(parsed.hostname)) return;
  throw new UsageError(
    `refusing plain http:// to ${parsed.host}: the token would cross the network unencrypted. Use an https:// URL, or pass --insecure (before the command) to send it anyway`,
  );
}

/** The root command's --insecure, wherever the command is. */
export function insecureAllowed(command: Command): boolean {
  return Boolean(command.optsWithGlobals<{ insecure?: boolean }>().insecure);
}

/**
 * Warns (stderr) when the API token was given as --token on the command line: it stays in the
 * shell's history and shows in the process list (`ps`) while the command runs.
 */
export function warnOnTokenFlag(command: Command, warn: (text: string) => void): void {
  for (let c: Command | null = command; c; c = c.parent) {
    if (c.getOptionValueSource('token') === 'cli') {
      warn('warning: --token leaves the API token in your shell history and the process list; prefer CRONSVC_TOKEN or `cronsvc login`');
      return;
    }
  }
}

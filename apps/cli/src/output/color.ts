/** Colour only on a terminal, and never with NO_COLOR set to anything (https://no-color.org). */
export function colorEnabled(stream: NodeJS.WriteStream = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(stream.isTTY) && !env.NO_COLOR;
}

const CODES = { red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36, gray: 90, bold: 1 } as const;
export type Color = keyof typeof CODES;

export type Paint = (text: string, color: Color) => string;

export const painter = (enabled: boolean): Paint => (enabled ? (text, color) => `\x1b[${CODES[color]}m${text}\x1b[0m` : (text) => text);

/** The colour of a status, state or outcome word, whichever resource it belongs to. */
const STATUS_COLORS: Record<string, Color> = {
  succeeded: 'green', SUCCESS: 'green', active: 'green', up: 'green', sent: 'green', ok: 'green', approved: 'green', resumed: 'green',
  failed: 'red', down: 'red', HTTP_ERROR: 'red', TIMEOUT: 'red', CONNECTION_ERROR: 'red', rejected: 'red', expired: 'red',
  running: 'yellow', waiting: 'yellow', paused: 'yellow', pending: 'yellow', processing: 'yellow',
  queued: 'cyan', new: 'gray', draft: 'gray', completed: 'gray',
  fired: 'green', late: 'yellow', caught_up: 'cyan', missed: 'red', skipped: 'gray',
};

export function paintStatus(paint: Paint, status: string | null | undefined): string {
  if (!status) return '';
  const color = STATUS_COLORS[status];
  return color ? paint(status, color) : status;
}

const ANSI = /\x1b\[[0-9;]*m/g;

/** The width a string takes on screen, colour codes not counted. */
export const visibleLength = (text: string): number => text.replace(ANSI, '').length;

import { Writable } from 'node:stream';
import winston from 'winston';
import { createLogger, type Logger } from '../src/logging/logger.js';

export interface CapturedLogs {
  logger: Logger;
  /** Every line written so far, as printed. */
  lines: string[];
  /** The production (JSON) lines parsed; only for `production: true`. */
  entries(): Record<string, unknown>[];
}

/** A logger of the service's own format whose lines are kept instead of printed. */
export function captureLogs(options: { level?: string; production?: boolean; service?: string } = {}): CapturedLogs {
  const lines: string[] = [];
  const logger = createLogger({ level: options.level ?? 'silly', production: options.production ?? true, service: options.service ?? 'test' });
  logger.clear();
  logger.add(new winston.transports.Stream({ stream: new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk).trim()), done()) }) }));
  return { logger, lines, entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

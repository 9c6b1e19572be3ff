import { Writable } from 'node:stream';
import winston from 'winston';
import { createLogger, type Logger } from '../src/logging/logger.js';

export interface CapturedLogs {
  logger: Logger;
  /** Every entry written so far, as printed. */
  lines: string[];
  /** The entries parsed; only for production (JSON) lines. */
  entries(): Record<string, unknown>[];
}

/** A logger of the service's format whose entries are kept in `lines` instead of printed. */
export function capturingLogger(production = true, options: { level?: string; service?: string } = {}): CapturedLogs {
  const lines: string[] = [];
  const logger = createLogger({ level: options.level ?? 'info', production, service: options.service ?? 'test' });
  logger.clear();
  logger.add(new winston.transports.Stream({ stream: new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }) }));
  return { logger, lines, entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

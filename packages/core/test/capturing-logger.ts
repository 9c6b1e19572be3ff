import { Writable } from 'node:stream';
import winston from 'winston';
import { createLogger, type Logger } from '../src/logging/logger.js';

/** A logger of the service's format whose entries are kept in `lines` instead of printed. */
export function capturingLogger(production = true): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', production, service: 'test' });
  logger.clear();
  logger.add(new winston.transports.Stream({ stream: new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }) }));
  return { logger, lines };
}

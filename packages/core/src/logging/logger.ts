import winston from 'winston';
import { currentRequestId } from './log-context.js';

export type Logger = winston.Logger;

const SECRET_KEYS = /^(authorization|cookie|x-webhook-secret|api_token|token|value|signing_key|password|secret)$/i;

/** Hides credentials wherever they appear in a log entry's metadata. */
const redact = winston.format((info) => {
  const scrub = (value: unknown, depth: number): unknown => {
    if (depth > 5 || value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
    const out: Record<string, unknown> = {};
    // An Error's name, message and stack are not enumerable: copied by hand, or they are lost
    // and the entry says "error": {}. Its own fields (code, status, ...) follow.
    if (value instanceof Error) Object.assign(out, { name: value.name, message: value.message, stack: value.stack });
    for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEYS.test(k) ? '[redacted]' : scrub(v, depth + 1);
    return out;
  };
  for (const key of Object.keys(info)) {
    if (key === 'level' || key === 'message') continue;
    info[key] = SECRET_KEYS.test(key) ? '[redacted]' : scrub(info[key], 0);
  }
  return info;
});

/** The request id of the scope the entry was written in (log-context.ts), unless the entry names one. */
const requestId = winston.format((info) => {
  const id = currentRequestId();
  if (id !== undefined && info.request_id === undefined) info.request_id = id;
  return info;
});

/** Production lines name their fields `time`, `level`, `msg`, `service` and `request_id`, as log shippers expect. */
const productionFields = winston.format((info) => {
  info.time = info.timestamp;
  info.msg = info.message;
  delete info.timestamp;
  delete (info as { message?: unknown }).message;
  return info;
});

/** `level: 'silent'` drops every entry (tests). */
export function createLogger(options: { level: string; production: boolean; service: string }): Logger {
  const format = options.production
    ? winston.format.combine(requestId(), redact(), winston.format.errors({ stack: true }), winston.format.timestamp(), productionFields(), winston.format.json())
    : winston.format.combine(
        requestId(),
        redact(),
        winston.format.timestamp(),
        winston.format.errors({ stack: true }),
        winston.format.printf(({ timestamp, level, message, service, ...meta }) => {
          const rest = Object.keys(meta).length ? ' ' + JSON.stringify(meta) : '';
          return `${timestamp} ${level} [${service}] ${message}${rest}`;
        }),
      );
  return winston.createLogger({
    level: options.level === 'silent' ? 'error' : options.level,
    silent: options.level === 'silent',
    defaultMeta: { service: options.service },
    format,
    transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn'] })],
  });
}

import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import { SUPERVISED_ENV } from '../config/config.js';
import { processRegistry } from '../metrics/registry.js';

/**
 * One scrape of the API covers every process of `npm start` (docs/adr/017-operating-signals.md):
 * the API asks its supervisor over the IPC channel, the supervisor asks each child for its
 * registry as JSON, adds them up with its own (prom-client's AggregatorRegistry, as its cluster
 * mode does), and answers the text. Messages are plain objects with these types.
 */
const SCRAPE = 'cronsvc:scrape';
const SCRAPED = 'cronsvc:scraped';
const COLLECT = 'cronsvc:collect';
const COLLECTED = 'cronsvc:collected';

type Metrics = MetricObjectWithValues<MetricValue<string>>[];
type Message = { type?: string; id?: string; metrics?: Metrics; text?: string; error?: string };

// A child that does not answer in this time is left out of the scrape rather than failing it.
const COLLECT_TIMEOUT_MS = 3_000;

function isMessage(value: unknown): value is Message {
  return typeof value === 'object' && value !== null && typeof (value as Message).type === 'string';
}

/**
 * Whether this process can ask a supervisor: one started it (ALL_IN_ONE is its own supervisor
 * and answers alone), with an IPC channel.
 */
export function supervisedScrapeAvailable(supervisor: string | undefined): boolean {
  return supervisor !== undefined && process.env[SUPERVISED_ENV] === supervisor && typeof process.send === 'function' && process.connected;
}

/** In a child: answers the supervisor's requests for this process's metrics. */
export function answerSupervisor(collect: () => Promise<Metrics>): void {
  if (typeof process.send !== 'function') return;
  process.on('message', (message: unknown) => {
    if (!isMessage(message) || message.type !== COLLECT) return;
    collect().then(
      (metrics) => process.send?.({ type: COLLECTED, id: message.id, metrics }),
      (error: Error) => process.send?.({ type: COLLECTED, id: message.id, error: error.message }),
    );
  });
}

/** In the API under `npm start`: the text of one scrape of every process, from the supervisor. */
export function scrapeThroughSupervisor(timeoutMs = COLLECT_TIMEOUT_MS + 2_000): Promise<string> {
  const id = randomUUID();
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => {
      if (!isMessage(message) || message.type !== SCRAPED || message.id !== id) return;
      done();
      if (message.error !== undefined || message.text === undefined) reject(new Error(message.error ?? 'empty answer'));
      else resolve(message.text);
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`the supervisor did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      process.off('message', onMessage);
    };
    process.on('message', onMessage);
    process.send?.({ type: SCRAPE, id });
  });
}

/** Asks one child for its metrics; null when it does not answer in time or cannot. */
function collectFrom(child: ChildProcess): Promise<Metrics | null> {
  if (!child.connected) return Promise.resolve(null);
  const id = randomUUID();
  return new Promise((resolve) => {
    const onMessage = (message: unknown) => {
      if (!isMessage(message) || message.type !== COLLECTED || message.id !== id) return;
      done(message.metrics ?? null);
    };
    const timer = setTimeout(() => done(null), COLLECT_TIMEOUT_MS);
    const done = (metrics: Metrics | null) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(metrics);
    };
    child.on('message', onMessage);
    child.send({ type: COLLECT, id }, (error) => error && done(null));
  });
}

/**
 * In the supervisor: answers each child's scrape request with the sum of every child's metrics
 * and its own. `children` is read at each scrape, so restarted children are included.
 */
export function serveScrapes(children: () => Iterable<ChildProcess>): { watch(child: ChildProcess): void } {
  const scrape = async (): Promise<string> => {
    const lists = await Promise.all([...children()].map(collectFrom));
    const all = [await processRegistry.getMetricsAsJSON(), ...lists.filter((m): m is Metrics => m !== null)];
    return AggregatorRegistry.aggregate(all).metrics();
  };
  return {
    watch(child) {
      child.on('message', (message: unknown) => {
        if (!isMessage(message) || message.type !== SCRAPE) return;
        scrape().then(
          (text) => child.connected && child.send({ type: SCRAPED, id: message.id, text }),
          (error: Error) => child.connected && child.send({ type: SCRAPED, id: message.id, error: error.message }),
        );
      });
    },
  };
}

import type { Config } from '../config/config.js';
import type { Logger } from '../logging/logger.js';

export type SpanAttributes = Record<string, string | number | boolean>;

/** The span kinds the service writes (OpenTelemetry's SpanKind, by name). */
export type SpanKindName = 'server' | 'producer' | 'consumer' | 'client';

export interface SpanStart {
  /** `execution.enqueue`, `execution.claim`, `execution.attempt`. */
  name: string;
  kind: SpanKindName;
  /** The execution whose trace the span is in: its trace id is traceIdOf(traceKey), the one its requests carry. */
  traceKey: string;
  /**
   * The `traceparent` of its parent when that came from another process (the enqueue's, in the
   * queue payload); otherwise the span within which this one starts (OpenSpan.within, an API
   * request) is its parent when it is in the same trace.
   */
  parent?: string;
  attributes?: SpanAttributes;
}

export interface SpanEnd {
  attributes?: SpanAttributes;
  /** Marks the span failed, with this description. */
  error?: string;
}

export interface OpenSpan {
  /** This span as a W3C `traceparent`, sampled: what its request carries, or its children's parent. */
  readonly traceparent: string;
  /** Runs `work` (and what it starts) with this span as the parent of the spans started in it. */
  within<T>(work: () => T): T;
  end(outcome?: SpanEnd): void;
}

/** An API request's span: written when the request ends, in the trace of the first execution it created. */
export interface RequestSpan {
  within<T>(work: () => T): T;
  end(outcome: SpanEnd & { name: string }): void;
}

/**
 * Spans exported over OTLP/HTTP (docs/adr/030-spans-exported-over-otlp.md). A process without
 * OTEL_EXPORTER_OTLP_ENDPOINT has none: `undefined` wherever a Tracing is taken, and nothing of
 * the SDK is loaded.
 */
export interface Tracing {
  start(span: SpanStart): OpenSpan;
  /** `incoming` is the request's own `traceparent`, kept as a link (the execution's trace is ours). */
  request(options: { incoming?: string }): RequestSpan;
  /** Exports what is buffered and stops; the last thing a process does before it exits. */
  shutdown(): Promise<void>;
}

/**
 * The tracing of one process named `app` (`api`, `executor`, ...; `all` under ALL_IN_ONE), or
 * undefined when OTEL_EXPORTER_OTLP_ENDPOINT is unset. Only then is the module that imports the
 * OpenTelemetry SDK loaded.
 */
export async function startTracing(config: Config, app: string, logger: Logger): Promise<Tracing | undefined> {
  if (config.otlpTracesUrl === undefined) return undefined;
  const { otelTracing } = await import('./otel-tracing.js');
  return otelTracing({ url: config.otlpTracesUrl, headers: config.otlpHeaders, serviceName: config.otelServiceName ?? (app === 'all' ? 'cronsvc' : `cronsvc-${app}`), app, logger });
}

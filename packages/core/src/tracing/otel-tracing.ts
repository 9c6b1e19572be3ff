// Loaded only when OTEL_EXPORTER_OTLP_ENDPOINT is set (startTracing): the one module of the
// service that imports the OpenTelemetry SDK.
import { AsyncLocalStorage } from 'node:async_hooks';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Link, type Span, type SpanContext } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, RandomIdGenerator, type IdGenerator, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { withLogContext } from '../logging/log-context.js';
import type { Logger } from '../logging/logger.js';
import { parseTraceparent, traceIdOf } from './trace-ids.js';
import type { OpenSpan, RequestSpan, SpanEnd, SpanKindName, SpanStart, Tracing } from './tracing.js';

const KINDS: Record<SpanKindName, SpanKind> = { server: SpanKind.SERVER, producer: SpanKind.PRODUCER, consumer: SpanKind.CONSUMER, client: SpanKind.CLIENT };

/**
 * The SDK takes a span's trace id from its parent, or from its id generator when it has none. A
 * span that starts an execution's trace must have that execution's trace id, and an API request's
 * span the span id chosen when the request began: these ids are handed to the generator for the
 * one synchronous startSpan call that asks for them (ChosenIds.use).
 */
class ChosenIds implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  private chosen: { traceId?: string; spanId?: string } = {};
  use<T>(ids: { traceId?: string; spanId?: string }, start: () => T): T {
    this.chosen = ids;
    try {
      return start();
    } finally {
      this.chosen = {};
    }
  }
  generateTraceId(): string {
    return this.chosen.traceId ?? this.random.generateTraceId();
  }
  generateSpanId(): string {
    return this.chosen.spanId ?? this.random.generateSpanId();
  }
}

/**
 * The exporter, saying once that exports fail (the collector away) and once that they work again,
 * instead of a line per batch.
 */
class QuietExporter implements SpanExporter {
  private failing = false;
  constructor(
    private readonly inner: SpanExporter,
    private readonly logger: Logger,
    private readonly url: string,
  ) {}
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      const failed = result.code !== ExportResultCode.SUCCESS;
      // The batch timer may have been started within an API request's scope: these lines are no request's.
      withLogContext({}, () => {
        if (failed && !this.failing) this.logger.warn('exporting spans failed; spans are dropped until the collector answers', { url: this.url, error: result.error?.message });
        if (!failed && this.failing) this.logger.info('exporting spans works again', { url: this.url });
      });
      this.failing = failed;
      done(result);
    });
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/**
 * Where a span started in it finds its parent: the span it runs within. An API request's scope has
 * no trace until its first execution's span binds it (`bindable`).
 */
interface Scope {
  traceId?: string;
  spanId: string;
  bindable: boolean;
  /** An API request that has answered: what still runs in its scope (a callback it left behind) is not its child. */
  ended?: boolean;
}

const sampled = (traceId: string, spanId: string): SpanContext => ({ traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true });

function finish(span: Span, outcome: SpanEnd = {}): void {
  if (outcome.attributes) span.setAttributes(outcome.attributes);
  if (outcome.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error });
  span.end();
}

export function otelTracing(options: { url: string; headers: Readonly<Record<string, string>>; serviceName: string; app: string; logger: Logger }): Tracing {
  const ids = new ChosenIds();
  const exporter = new QuietExporter(new OTLPTraceExporter({ url: options.url, headers: { ...options.headers } }), options.logger, options.url);
  const provider = new BasicTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': options.serviceName, 'service.namespace': 'cronsvc', 'cronsvc.app': options.app })),
    idGenerator: ids,
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('cronsvc');
  const scopes = new AsyncLocalStorage<Scope>();

  /** The span's parent: the explicit one, else the scope's (binding an API request to this trace), when in the same trace. */
  const parentOf = (traceId: string, explicit: string | undefined): { parent?: SpanContext; links: Link[] } => {
    const given = parseTraceparent(explicit);
    if (given?.traceId === traceId) return { parent: sampled(given.traceId, given.spanId), links: [] };
    const scope = scopes.getStore();
    if (!scope || scope.ended) return { links: [] };
    if (scope.bindable && scope.traceId === undefined) scope.traceId = traceId;
    if (scope.traceId === traceId) return { parent: sampled(traceId, scope.spanId), links: [] };
    // Another execution of the same request (a batch replay): a trace of its own, linked to it.
    return { links: [{ context: sampled(scope.traceId!, scope.spanId) }] };
  };

  const opened = (span: Span): OpenSpan => {
    const { traceId, spanId } = span.spanContext();
    return {
      traceparent: `00-${traceId}-${spanId}-01`,
      within: (work) => scopes.run({ traceId, spanId, bindable: false }, work),
      end: (outcome) => finish(span, outcome),
    };
  };

  return {
    start(start: SpanStart): OpenSpan {
      const traceId = traceIdOf(start.traceKey);
      const { parent, links } = parentOf(traceId, start.parent);
      const context = parent ? trace.setSpanContext(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
      const span = ids.use({ traceId }, () => tracer.startSpan(start.name, { kind: KINDS[start.kind], attributes: start.attributes, links }, context));
      return opened(span);
    },
    request({ incoming }): RequestSpan {
      const scope: Scope = { spanId: ids.generateSpanId(), bindable: true };
      const startTime = new Date();
      const caller = parseTraceparent(incoming);
      return {
        within: (work) => scopes.run(scope, work),
        end(outcome) {
          scope.ended = true;
          const links = caller ? [{ context: sampled(caller.traceId, caller.spanId) }] : [];
          const span = ids.use({ traceId: scope.traceId, spanId: scope.spanId }, () =>
            tracer.startSpan(outcome.name, { kind: SpanKind.SERVER, startTime, links }, ROOT_CONTEXT),
          );
          finish(span, outcome);
        },
      };
    },
    async shutdown() {
      // A last export that fails is reported by the exporter, like any other.
      await provider.shutdown().catch(() => undefined);
    },
  };
}

import { randomBytes } from 'node:crypto';
import { loadConfig } from '../src/config/config.js';
import { createLogger } from '../src/logging/logger.js';
import { parseTraceparent, traceIdOf } from '../src/tracing/trace-ids.js';
import { startTracing, type Tracing } from '../src/tracing/tracing.js';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.js';

// How spans find their trace and their parent (docs/adr/030-spans-exported-over-otlp.md), against
// a local OTLP receiver. The whole path through the service is scripts/traces.test.ts.

const logger = createLogger({ level: 'silent', production: false, service: 'test' });
const configWith = (env: Record<string, string>) => loadConfig({ SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'), ...env });

let receiver: OtlpReceiver;
let tracing: Tracing;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  tracing = (await startTracing(configWith({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=s%3Dcret' }), 'api', logger))!;
});
afterAll(async () => {
  await receiver?.close();
});

it('is off when OTEL_EXPORTER_OTLP_ENDPOINT is unset', async () => {
  expect(await startTracing(configWith({}), 'api', logger)).toBeUndefined();
});

it("puts a request's span in the trace of the execution it creates, as the parent of the enqueue, and the claim and attempt after it", async () => {
  const request = tracing.request({ incoming: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` });
  const enqueue = request.within(() => tracing.start({ name: 'execution.enqueue', kind: 'producer', traceKey: 'exe_1' }));
  enqueue.end();
  // Another execution of the same request starts its own trace, linked to the request.
  const second = request.within(() => tracing.start({ name: 'execution.enqueue', kind: 'producer', traceKey: 'exe_2' }));
  second.end();
  request.end({ name: 'POST /v1/jobs', attributes: { 'http.route': '/v1/jobs' } });
  // In the executor, the payload carries the enqueue's traceparent.
  const claim = tracing.start({ name: 'execution.claim', kind: 'consumer', traceKey: 'exe_1', parent: enqueue.traceparent });
  claim.end();
  const attempt = claim.within(() => tracing.start({ name: 'execution.attempt', kind: 'client', traceKey: 'exe_1' }));
  attempt.end({ error: 'HTTP_5XX' });
  // A claim whose enqueue is unknown (queued again by the reconciler) is still in the execution's trace.
  tracing.start({ name: 'execution.claim', kind: 'consumer', traceKey: 'exe_3' }).end();
  await tracing.shutdown();

  const spans = receiver.spans();
  const one = (name: string, traceKey: string) => {
    const found = spans.filter((s) => s.name === name && s.traceId === traceIdOf(traceKey));
    expect(found).toHaveLength(1);
    return found[0];
  };
  const server = one('POST /v1/jobs', 'exe_1');
  expect(server).toMatchObject({ service: 'cronsvc-api', kind: 2, parentSpanId: '', links: [{ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) }] });
  expect(one('execution.enqueue', 'exe_1')).toMatchObject({ kind: 4, parentSpanId: server.spanId, spanId: parseTraceparent(enqueue.traceparent)!.spanId });
  expect(one('execution.enqueue', 'exe_2')).toMatchObject({ parentSpanId: '', links: [{ traceId: traceIdOf('exe_1'), spanId: server.spanId }] });
  const claimed = one('execution.claim', 'exe_1');
  expect(claimed).toMatchObject({ kind: 5, parentSpanId: parseTraceparent(enqueue.traceparent)!.spanId });
  expect(one('execution.attempt', 'exe_1')).toMatchObject({ kind: 3, parentSpanId: claimed.spanId, spanId: parseTraceparent(attempt.traceparent)!.spanId, status: { code: 2, message: 'HTTP_5XX' } });
  expect(one('execution.claim', 'exe_3')).toMatchObject({ parentSpanId: '' });
  expect(attempt.traceparent).toMatch(new RegExp(`^00-${traceIdOf('exe_1')}-[0-9a-f]{16}-01$`));
  // OTEL_EXPORTER_OTLP_HEADERS, percent-decoded, on every export.
  expect(receiver.server.received.every((r) => r.headers['x-api-key'] === 's=cret')).toBe(true);
});

import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { aOneTimeJob, repoRoot, startOtlpReceiver, startService, startTargetServer, waitFor, type OtlpReceiver, type TargetServer } from '@cronsvc/core/testing';

// Traces as an operator turns them on (docs/OPERATIONS.md, "Traces"): `npm start` with
// OTEL_EXPORTER_OTLP_ENDPOINT pointing at a local OTLP/HTTP receiver, one job created through the
// API, then a clean stop (SIGTERM), which must flush every app's spans. Each process records the
// @opentelemetry packages it imports (import-recorder.mjs), so the run without the variable can
// show that no process loaded the SDK.

const TOKEN = 'csk_traces_test_token_0123456789';
const RECORDER = path.join(repoRoot, 'packages/core/test/import-recorder.mjs');
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

let receiver: OtlpReceiver;
let target: TargetServer;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  target = await startTargetServer();
});
afterAll(async () => {
  await receiver?.close();
  await target?.close();
});

/**
 * Starts the service with `env`, creates a one_time job through the API, waits for its request at
 * the target and stops the service with SIGTERM. Answers the traceparent the target received, the
 * lines of the import record ("<pid> <specifier>") and what the service printed.
 */
async function runOneJob(env: Record<string, string>): Promise<{ traceparent: string; imports: string[]; output: string }> {
  const record = path.join(await mkdtemp(path.join(os.tmpdir(), 'cronsvc-imports-')), 'imports.txt');
  const service = await startService({ BOOTSTRAP_API_TOKEN: TOKEN, ALLOW_PRIVATE_TARGETS: 'true', NODE_OPTIONS: `--import=${RECORDER}`, RECORD_IMPORTS_FILE: record, ...env });
  try {
    await waitFor(async () => (await fetch(`${service.base}/readyz`).catch(() => null))?.status === 200, {
      timeoutMs: 180_000,
      what: () => `/readyz to answer 200 (output: ${service.app.output()})`,
    });
    const at = `/traced-${Date.now()}`;
    const created = await fetch(`${service.base}/v1/jobs`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(aOneTimeJob({ name: 'traced', request: { url: `${target.url}${at}` } })),
    });
    expect(created.status).toBe(201);
    const arrival = await waitFor(() => target.received.find((r) => r.url === at), { timeoutMs: 30_000, what: 'the attempt at the target' });
    // The supervisor passes the SIGTERM on to each app; each stops cleanly.
    expect(await service.app.stop()).toBe(0);
    const imports = (await readFile(record, 'utf8').catch(() => '')).split('\n').filter(Boolean);
    return { traceparent: String(arrival.headers.traceparent), imports, output: service.app.output() };
  } finally {
    await service.close();
  }
}

const loadingPids = (imports: string[], specifier: string) => new Set(imports.filter((line) => line.endsWith(` ${specifier}`)).map((line) => line.split(' ')[0]));

it('exports the API request, the enqueue, the claim and the attempt in the trace whose id the target received, flushed by a clean stop', async () => {
  const { traceparent, imports, output } = await runOneJob({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
  expect(output).toContain(`traces: spans exported over OTLP/HTTP to ${receiver.url}/v1/traces`);
  const [, traceId, spanId, flags] = TRACEPARENT.exec(traceparent) ?? [];
  expect(flags).toBe('01');
  const trace = receiver.spans().filter((s) => s.traceId === traceId);
  const only = (name: string, attributes: Record<string, string | number | boolean> = {}) => {
    const found = trace.filter((s) => s.name === name && Object.entries(attributes).every(([k, v]) => s.attributes[k] === v));
    expect([name, found.length]).toEqual([name, 1]);
    return found[0];
  };
  const request = only('POST /v1/jobs');
  // Should the reconciler queue it again meanwhile, that is an enqueue (and a claim) of its own.
  const enqueue = only('execution.enqueue', { 'cronsvc.requeue': false });
  const claim = only('execution.claim', { 'cronsvc.claim.outcome': 'claimed' });
  const attempt = only('execution.attempt');
  expect(request).toMatchObject({ service: 'cronsvc-api', kind: 2, parentSpanId: '', attributes: { 'http.route': '/v1/jobs', 'http.response.status_code': 201 } });
  expect(enqueue).toMatchObject({ service: 'cronsvc-api', kind: 4, parentSpanId: request.spanId });
  expect(claim).toMatchObject({ service: 'cronsvc-executor', kind: 5, parentSpanId: enqueue.spanId });
  // The target's parent span is the attempt's: its spans join the service's.
  expect(attempt).toMatchObject({ service: 'cronsvc-executor', kind: 3, spanId, parentSpanId: claim.spanId, attributes: { 'cronsvc.attempt': 1, 'http.response.status_code': 200 } });
  // The API, the scheduler, the executor and the notifier each loaded the SDK.
  expect(loadingPids(imports, '@opentelemetry/sdk-trace-base').size).toBe(4);
}, 300_000);

it('loads none of the SDK and exports nothing when OTEL_EXPORTER_OTLP_ENDPOINT is unset', async () => {
  const posted = receiver.server.received.length;
  // One process that loads every app (ALL_IN_ONE) shows it at the least cost.
  const { traceparent, imports } = await runOneJob({ ALL_IN_ONE: '1' });
  // The requests still carry their trace, unsampled.
  expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
  // The same record showed the SDK in every app in the test above.
  expect(imports.filter((line) => /@opentelemetry\/(sdk-trace|exporter|resources)/.test(line))).toEqual([]);
  expect(receiver.server.received.length).toBe(posted);
}, 300_000);

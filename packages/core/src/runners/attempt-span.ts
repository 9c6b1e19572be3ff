import type { AttemptVerdict } from '../attempts/decide-attempt.js';
import type { ClaimedExecution } from '../executions/claim-attempt.js';
import type { HttpResult, OutboundRequest } from '../http/http-client.js';
import type { OpenSpan } from '../tracing/tracing.js';
import type { RunnerDeps } from './runner.js';

/**
 * The `execution.attempt` span of a request about to be sent, when spans are exported: started
 * within the claim's span, and its traceparent is the one the request carries, so the target's
 * spans are its children (docs/adr/030-spans-exported-over-otlp.md). The target is named by
 * scheme, host and port only: paths and query strings may carry credentials.
 */
export function startAttemptSpan(deps: RunnerDeps, exe: ClaimedExecution, request: OutboundRequest, number: number): OpenSpan | undefined {
  if (!deps.tracing) return undefined;
  const url = URL.canParse(request.url) ? new URL(request.url) : null;
  return deps.tracing.start({
    name: 'execution.attempt',
    kind: 'client',
    traceKey: exe.id,
    attributes: {
      'cronsvc.execution_id': exe.id,
      'cronsvc.job_id': exe.jobId,
      'cronsvc.workspace_id': exe.workspaceId,
      'cronsvc.attempt': number,
      'http.request.method': request.method,
      ...(url
        ? { 'url.scheme': url.protocol.replace(/:$/, ''), 'server.address': url.hostname, 'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)) }
        : {}),
    },
  });
}

/** Ends the attempt's span with its answer and verdict; failed unless the attempt succeeded. */
export function endAttemptSpan(span: OpenSpan | undefined, result: HttpResult, verdict: AttemptVerdict): void {
  span?.end({
    attributes: {
      'cronsvc.attempt.status': verdict.status,
      'cronsvc.attempt.outcome': verdict.outcome,
      ...(result.kind === 'response' ? { 'http.response.status_code': result.statusCode } : {}),
      ...(verdict.errorClass ? { 'error.type': verdict.errorClass } : {}),
    },
    ...(verdict.outcome === 'succeeded' ? {} : { error: verdict.errorClass }),
  });
}

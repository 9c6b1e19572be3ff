import type { HttpStep, RequestSpec } from '@cronsvc/contracts';
import { parseJsonBody } from '../attempts/json-path.js';
import { buildRequest } from '../http/build-request.js';
import { DecryptionError } from '../secrets/crypto.js';
import type { OutboundRequest } from '../http/http-client.js';
import { maskedSecretValues } from '../secrets/mask-secrets.js';
import { resolveSecrets } from '../secrets/resolve-secrets.js';
import { renderStepJson, renderStepString, renderStepUrl, shownStepUrl, stepSecretNames, type StepValues } from '../templates/step-template.js';
import type { Run } from '../workflows/load-run.js';
import type { RunnerDeps } from './runner.js';
import { sendAttempt, type HostDeferral, type RenderedRequest } from './send-attempt.js';
import type { HttpStepAttempt } from './step-plans.js';

/** Whether text could parse as JSON at all, judged by its first character past whitespace (and a BOM). */
export function mayBeJson(text: string): boolean {
  return /^[\s\uFEFF]*[[{"\-0-9tfn]/.test(text);
}

/** The step rendered with the run's values (context, trigger, variables, secrets read now); why not when it cannot be sent. */
async function renderStepRequest(deps: RunnerDeps, run: Run, step: HttpStep): Promise<RenderedRequest> {
  const { exe } = run;
  try {
    const { values: secrets, missing } = await resolveSecrets(deps, exe.workspaceId, stepSecretNames(step));
    if (missing.length > 0) {
      const error = `secret${missing.length > 1 ? 's' : ''} ${missing.map((n) => `"${n}"`).join(', ')} no longer exist${missing.length > 1 ? '' : 's'} in the workspace (referenced by step "${step.id}")`;
      return { error, errorClass: 'SECRET_NOT_FOUND' };
    }
    const values: StepValues = { ...exe.variables, execution_id: exe.id, secrets, context: run.context, trigger: run.trigger };
    // The run's deadline bounds the call too: max_workflow_duration_seconds covers the steps' own time.
    const remainingSeconds = Math.max(0.001, (run.deadline.getTime() - deps.clock.now().getTime()) / 1000);
    const build = (url: string, using: StepValues): OutboundRequest => {
      const spec: RequestSpec = {
        url,
        method: step.method as RequestSpec['method'],
        headers: Object.fromEntries(Object.entries(step.headers).map(([k, v]) => [k, renderStepString(v, using)])),
        body: renderStepJson(step.body_template ?? null, using),
        timeout_seconds: Math.min(step.timeout_seconds, remainingSeconds),
        success_statuses: step.success_statuses,
      };
      return buildRequest(spec, exe.id, exe.workspaceId);
    };
    const url = renderStepUrl(step.url, values);
    if (url === null) return { error: `the URL's scheme, host or port would come from a trigger or context value (step "${step.id}"); it is not called`, errorClass: 'BLOCKED_TARGET' };
    const request = build(url, values);
    if (secrets.size === 0) return { request, secretValues: [], shown: request };
    // What the attempt records: the same request with [secret] where each value went.
    const masked = { ...values, secrets: maskedSecretValues(secrets) };
    return { request, secretValues: [...secrets.values()], shown: build(shownStepUrl(step.url, masked), masked) };
  } catch (error) {
    if (error instanceof DecryptionError) return { error: `a credential of this workspace cannot be decrypted: ${error.message}`, errorClass: 'SECRET_NOT_FOUND' };
    throw error;
  }
}

/**
 * One attempt of an http step: the same pipeline as a request job's attempt (sendAttempt: host gate, signature,
 * target guard, read cap, masking, success statuses, matcher and assertions, the job's retry
 * policy), with the step's templates rendered from the run's context and trigger, and the masked
 * body parsed for extraction.
 */
export async function attemptHttpStep(deps: RunnerDeps, run: Run, step: HttpStep, number: number): Promise<HttpStepAttempt | HostDeferral> {
  const startedAt = deps.clock.now();
  // The run's deadline bounds a retry's time too (attempts/retry-at.ts).
  const sent = await sendAttempt(deps, run.exe, await renderStepRequest(deps, run, step), step, number, { deadline: run.deadline });
  if ('hostDeferred' in sent) return sent;
  const { verdict } = sent;
  const attempt = {
    number,
    status: verdict.status,
    request: sent.request,
    statusCode: sent.statusCode,
    latencyMs: sent.latencyMs,
    timings: sent.timings,
    bodyPreview: sent.preview,
    responseHeaders: sent.headers,
    errorClass: verdict.errorClass,
    errorMessage: verdict.errorMessage,
    startedAt,
    budgetWaitMs: sent.budgetWaitMs,
  };
  if (sent.bodyText === null || sent.statusCode === null) return { attempt, verdict, document: undefined, response: null, budget: sent.budget };
  // Masked before it is extracted from, so a secret echoed back never reaches the context. A body
  // that cannot be JSON is not handed to JSON.parse: a throw per plain-text answer costs more than the call.
  const maskedBody = sent.masker.mask(sent.bodyText);
  const parsed = mayBeJson(maskedBody) ? parseJsonBody(maskedBody) : { isJson: false as const };
  return {
    attempt,
    verdict,
    document: parsed.isJson ? parsed.value : undefined,
    response: { statusCode: sent.statusCode, bodyPreview: sent.preview },
    budget: sent.budget,
  };
}

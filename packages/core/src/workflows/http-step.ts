import { buildRequest } from '../executions/build-request.js';
import { decideAttempt, type AttemptVerdict } from '../executions/decide-attempt.js';
import { jsonPathBudget, parseJsonBody, type JsonPathBudget } from '../executions/json-path.js';
import { withLease, type RunAttemptDeps } from '../executions/run-attempt.js';
import { bodyPreview, type OutboundRequest } from '../http/http-client.js';
import type { HttpStep, RequestSpec } from '@cronsvc/contracts';
import { DecryptionError } from '../secrets/crypto.js';
import { maskSecretHeaders, secretMasker } from '../secrets/mask-secrets.js';
import { resolveSecrets } from '../secrets/resolve-secrets.js';
import { signRequest } from '../signatures/sign.js';
import { signingKeysFrom } from '../signatures/signing-keys.js';
import { renderStepJson, renderStepString, renderStepUrl, stepSecretNames, type StepValues } from '../templates/step-template.js';
import type { Run } from './load-run.js';
import type { StepAttemptWrite } from './record-turn.js';

/** Whether text could parse as JSON at all, judged by its first character past whitespace (and a BOM). */
export function mayBeJson(text: string): boolean {
  return /^[\s\uFEFF]*[[{"\-0-9tfn]/.test(text);
}

export interface HttpStepAttempt {
  attempt: StepAttemptWrite;
  verdict: AttemptVerdict;
  /** The response body (secrets masked) parsed as JSON, for extract; undefined without a JSON body. */
  document: unknown;
  response: { statusCode: number; bodyPreview: string | null } | null;
  /** What is left of the attempt's JSONPath budget, for the step's extraction. */
  budget: JsonPathBudget;
}

type Unsendable = { error: string; errorClass: 'SECRET_NOT_FOUND' | 'BLOCKED_TARGET' };

/** Renders the step with the run's values and signs it; why not when a credential cannot be had or the URL went elsewhere. */
async function signedStepRequest(deps: RunAttemptDeps, run: Run, step: HttpStep): Promise<{ request: OutboundRequest; secretValues: string[] } | Unsendable> {
  const { exe } = run;
  try {
    const names = stepSecretNames(step);
    const { values: secrets, missing } = await resolveSecrets(deps, exe.workspaceId, names);
    if (missing.length > 0) {
      const error = `secret${missing.length > 1 ? 's' : ''} ${missing.map((n) => `"${n}"`).join(', ')} no longer exist${missing.length > 1 ? '' : 's'} in the workspace (referenced by step "${step.id}")`;
      return { error, errorClass: 'SECRET_NOT_FOUND' };
    }
    const values: StepValues = { ...exe.variables, execution_id: exe.id, secrets, context: run.context, trigger: run.trigger };
    const url = renderStepUrl(step.url, values);
    if (url === null) return { error: `the URL's scheme, host or port would come from a trigger or context value (step "${step.id}"); it is not called`, errorClass: 'BLOCKED_TARGET' };
    // The run's deadline bounds the call too: max_workflow_duration_seconds covers the steps' own time.
    const remainingSeconds = Math.max(0.001, (run.deadline.getTime() - deps.clock.now().getTime()) / 1000);
    const spec: RequestSpec = {
      url,
      method: step.method as RequestSpec['method'],
      headers: Object.fromEntries(Object.entries(step.headers).map(([k, v]) => [k, renderStepString(v, values)])),
      body: renderStepJson(step.body_template ?? null, values),
      timeout_seconds: Math.min(step.timeout_seconds, remainingSeconds),
      success_statuses: step.success_statuses,
    };
    const at = deps.clock.now();
    const keys = signingKeysFrom(exe.signingKeys, deps.config.secretsEncryptionKey, at);
    return { request: signRequest(buildRequest(spec, exe.id, exe.workspaceId), keys, exe.id, Math.floor(at.getTime() / 1000)), secretValues: [...secrets.values()] };
  } catch (error) {
    if (error instanceof DecryptionError) return { error: `a credential of this workspace cannot be decrypted: ${error.message}`, errorClass: 'SECRET_NOT_FOUND' };
    throw error;
  }
}

/**
 * One attempt of an http step: everything a request job's attempt does (variables, secrets,
 * signature, target guard, read cap, masking, success statuses, matcher and assertions, the
 * job's retry policy), with the step's templates rendered from the run's context and trigger.
 */
export async function attemptHttpStep(deps: RunAttemptDeps, run: Run, step: HttpStep, number: number): Promise<HttpStepAttempt> {
  const startedAt = deps.clock.now();
  const prepared = await signedStepRequest(deps, run, step);
  if ('error' in prepared) {
    const verdict: AttemptVerdict = { status: 'CONNECTION_ERROR', errorClass: prepared.errorClass, errorMessage: prepared.error, outcome: 'failed' };
    const attempt = { number, status: verdict.status, statusCode: null, latencyMs: 0, bodyPreview: null, responseHeaders: null, errorClass: verdict.errorClass, errorMessage: verdict.errorMessage, startedAt };
    return { attempt, verdict, document: undefined, response: null, budget: jsonPathBudget() };
  }
  const result = await withLease(deps, run.exe, () => deps.http.send(prepared.request));
  const bodyText = result.kind === 'response' ? result.body.toString('utf8') : '';
  // One masker and one JSONPath budget for the whole attempt: the checks mask what they quote
  // before cutting it, and the assertions and the step's extraction share the budget.
  const masker = secretMasker(prepared.secretValues);
  const budget = jsonPathBudget();
  const decided = decideAttempt(result, bodyText, step, run.exe.retryPolicy, number, { masker, budget });
  const verdict = { ...decided, errorMessage: decided.errorMessage === null ? null : masker.mask(decided.errorMessage) };
  const base = { number, status: verdict.status, latencyMs: result.latencyMs, errorClass: verdict.errorClass, errorMessage: verdict.errorMessage, startedAt };
  if (result.kind !== 'response') {
    return { attempt: { ...base, statusCode: null, bodyPreview: null, responseHeaders: null }, verdict, document: undefined, response: null, budget };
  }
  // Masked before anything is kept or extracted, so a secret echoed back never reaches a record or the context.
  const maskedBody = masker.mask(bodyText);
  const preview = bodyPreview(Buffer.from(maskedBody, 'utf8'));
  // A body that cannot be JSON is not handed to JSON.parse: a throw per plain-text answer costs more than the call.
  const parsed = mayBeJson(maskedBody) ? parseJsonBody(maskedBody) : { isJson: false as const };
  return {
    attempt: { ...base, statusCode: result.statusCode, bodyPreview: preview, responseHeaders: maskSecretHeaders(result.headers, masker) },
    verdict,
    document: parsed.isJson ? parsed.value : undefined,
    response: { statusCode: result.statusCode, bodyPreview: preview },
    budget,
  };
}

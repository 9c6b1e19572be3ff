import type { AttemptRequest, AttemptTimings, RequestSpec } from '@cronsvc/contracts';
import { traceparent, withTraceparent } from '../http/traceparent.js';
import { decideAttempt, type AttemptVerdict } from '../attempts/decide-attempt.js';
import { jsonPathBudget, type JsonPathBudget } from '../attempts/json-path.js';
import { hostCooldownUntil, type RetryTiming } from '../attempts/retry-at.js';
import { hostOf } from '../hosts/gate-decision.js';
import type { HostGate } from '../hosts/host-gate.js';
import type { ClaimedExecution } from '../executions/claim-attempt.js';
import type { OutboundRequest } from '../http/http-client.js';
import { DecryptionError } from '../secrets/crypto.js';
import { maskedPreview, maskSecretHeaders, secretMasker, type SecretMasker } from '../secrets/mask-secrets.js';
import { signatureHeaders, withSignature } from '../signatures/sign.js';
import { signingKeysFrom } from '../signatures/signing-keys.js';
import { endAttemptSpan, startAttemptSpan } from './attempt-span.js';
import { withLease } from './lease.js';
import { recordedRequest } from './recorded-request.js';
import type { RunnerDeps } from './runner.js';

/**
 * A request rendered for one attempt with the secret values it used and the same request with
 * [secret] in their place (`shown`, what the attempt records), or why it cannot be sent.
 */
export type RenderedRequest =
  | { request: OutboundRequest; secretValues: string[]; shown: OutboundRequest }
  | { error: string; errorClass: 'SECRET_NOT_FOUND' | 'BLOCKED_TARGET' };

/** What the answer is judged by: the request's or step's success statuses, matcher and assertions. */
export type AnswerChecks = Pick<RequestSpec, 'success_statuses' | 'response_matcher' | 'response_assertions'>;

/** One attempt as sent and judged: everything in it that is stored is already masked. */
export interface SentAttempt {
  verdict: AttemptVerdict;
  /** The request as sent, secrets masked; null when none was sent. */
  request: AttemptRequest | null;
  latencyMs: number;
  /** Per-phase timings; null when no request was made. */
  timings: AttemptTimings | null;
  statusCode: number | null;
  /** The body's first 64 KiB, secrets masked. */
  preview: string | null;
  headers: Record<string, string> | null;
  /** The body as received (unmasked: checks read it as it is), null without a response. */
  bodyText: string | null;
  /** The attempt's one masker and what is left of its one JSONPath budget, for whatever reads the body next. */
  masker: SecretMasker;
  budget: JsonPathBudget;
  /** How long the attempt waited for its host's budget or cool-down before it was sent, deferrals included (ms). */
  budgetWaitMs: number;
}

/** The host gate answered not now: the claim is to be released, no attempt recorded, nothing spent. */
export interface HostDeferral {
  hostDeferred: Date;
}

/** What sendAttempt needs beyond the request: the run's deadline for a workflow's step (retries are never due after it). */
export interface SendOptions {
  deadline?: Date | null;
}

// A place in a host's concurrency budget outlives its request's timeout by this much at most, when
// its executor never gives it back.
const HOLD_MARGIN_MS = 5_000;

function unsent(verdict: AttemptVerdict, budgetWaitMs = 0): SentAttempt {
  return { verdict, request: null, latencyMs: 0, timings: null, statusCode: null, preview: null, headers: null, bodyText: null, masker: secretMasker([]), budget: jsonPathBudget(), budgetWaitMs };
}

/** The time an attempt waited for its host, counted from the gate's first deferral of it when there was one. */
function waitedSince(exe: ClaimedExecution, gateStart: Date, waitedMs: number): number {
  const deferred = exe.budgetWaitingSince ? Math.max(0, gateStart.getTime() - exe.budgetWaitingSince.getTime()) : 0;
  return Math.round(deferred + waitedMs);
}

/** Records the host's cool-down; a failure to record it only costs the other requests a wasted call. */
async function coolDown(deps: RunnerDeps, gate: HostGate, exe: ClaimedExecution, host: string, until: Date): Promise<void> {
  try {
    await gate.coolDown(exe.workspaceId, host, until);
  } catch (error) {
    deps.logger.warn('host cool-down not recorded', { executionId: exe.id, host, error: (error as Error).message });
  }
}

/** The signature headers of the request under the execution's signing keys; an error when they cannot be decrypted. */
function signature(deps: RunnerDeps, exe: ClaimedExecution, request: OutboundRequest): { headers: Record<string, string> } | { error: string } {
  try {
    const at = deps.clock.now();
    const keys = signingKeysFrom(exe.signingKeys, deps.config.secretsEncryptionKey, at);
    return { headers: signatureHeaders(keys, exe.id, Math.floor(at.getTime() / 1000), request.body ?? '') };
  } catch (error) {
    // Stored under another SECRETS_ENCRYPTION_KEY: no retry can decrypt it.
    if (error instanceof DecryptionError) return { error: `a credential of this workspace cannot be decrypted: ${error.message}` };
    throw error;
  }
}

/**
 * One attempt, whatever kind of job makes it (docs/adr/026-a-gate-in-the-attempt-pipeline.md): sign
 * the rendered request, pass the host gate (its budget and cool-down; not now answers the
 * deferral, with nothing sent), send it under the claim's lease, decide success, retry or failure
 * (the job's retry policy, then the checks; a retry's time once, in attempts/retry-at.ts), record
 * the host's Retry-After as its cool-down, and mask what is kept (the request sent, the preview,
 * headers, the verdict's message). Request jobs and workflow http steps both come through here, so
 * a rule added here (masking, budgets) holds for both.
 */
export async function sendAttempt(
  deps: RunnerDeps,
  exe: ClaimedExecution,
  rendered: RenderedRequest,
  checks: AnswerChecks,
  number: number,
  options: SendOptions = {},
): Promise<SentAttempt | HostDeferral> {
  // No request was made, and retrying cannot bring the credential back.
  const refused = (errorClass: 'SECRET_NOT_FOUND' | 'BLOCKED_TARGET', message: string) =>
    unsent({ status: 'CONNECTION_ERROR', errorClass, errorMessage: message, outcome: 'failed' });
  if ('error' in rendered) return refused(rendered.errorClass, rendered.error);
  // The gate comes before the signature, whose timestamp must be the send's.
  const gate = deps.hostGate;
  const host = hostOf(rendered.request.url);
  const gateStart = deps.clock.now();
  const pass = gate ? await gate.pass(exe.workspaceId, host, rendered.request.timeoutMs + HOLD_MARGIN_MS) : null;
  if (pass && 'deferred' in pass) return { hostDeferred: pass.deferred };
  const budgetWaitMs = waitedSince(exe, gateStart, pass?.waitedMs ?? 0);
  const signed = signature(deps, exe, rendered.request);
  if ('error' in signed) {
    pass?.release();
    return refused('SECRET_NOT_FOUND', signed.error);
  }
  // One trace per execution, a span per attempt (docs/OPERATIONS.md, "Traces"): the exported span's
  // own when spans are exported.
  const span = startAttemptSpan(deps, exe, rendered.request, number);
  const trace = span?.traceparent ?? traceparent(exe.id);
  const request = withTraceparent(withSignature(rendered.request, signed.headers), trace);
  const sentRequest = recordedRequest(withTraceparent(withSignature(rendered.shown, signed.headers), trace));

  const result = await withLease(deps, exe, () => deps.http.send(request))
    .catch((error: Error) => {
      span?.end({ error: error.message });
      throw error;
    })
    .finally(() => pass?.release());
  const bodyText = result.kind === 'response' ? result.body.toString('utf8') : null;
  // One masker and one JSONPath budget serve the whole attempt: the checks mask what they quote
  // before cutting it, and the checks, the output template and a step's extraction share the budget.
  const masker = secretMasker(rendered.secretValues);
  const budget = jsonPathBudget();
  const timing: RetryTiming = { now: deps.clock.now(), retryAfterMaxMs: deps.config.retryAfterMaxMs, deadline: options.deadline, random: deps.random };
  const decided = decideAttempt(result, bodyText ?? '', checks, exe.retryPolicy, number, { masker, budget }, timing);
  const verdict = { ...decided, errorMessage: decided.errorMessage === null ? null : masker.mask(decided.errorMessage) };
  endAttemptSpan(span, result, verdict);
  const cooldownUntil = hostCooldownUntil(result, timing);
  if (cooldownUntil && host && gate) await coolDown(deps, gate, exe, host, cooldownUntil);
  if (result.kind !== 'response') return { ...unsent(verdict, budgetWaitMs), request: sentRequest, latencyMs: result.latencyMs, timings: result.timings, masker, budget };
  return {
    budgetWaitMs,
    verdict,
    request: sentRequest,
    latencyMs: result.latencyMs,
    timings: result.timings,
    statusCode: result.statusCode,
    preview: maskedPreview(bodyText ?? '', masker),
    headers: maskSecretHeaders(result.headers, masker),
    bodyText,
    masker,
    budget,
  };
}

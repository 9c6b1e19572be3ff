import type { AttemptRequest, RequestSpec } from '@cronsvc/contracts';
import { traceparent, withTraceparent } from '../http/traceparent.js';
import { decideAttempt, type AttemptVerdict } from '../attempts/decide-attempt.js';
import { jsonPathBudget, type JsonPathBudget } from '../attempts/json-path.js';
import type { ClaimedExecution } from '../executions/claim-attempt.js';
import type { OutboundRequest } from '../http/http-client.js';
import { DecryptionError } from '../secrets/crypto.js';
import { maskedPreview, maskSecretHeaders, secretMasker, type SecretMasker } from '../secrets/mask-secrets.js';
import { signatureHeaders, withSignature } from '../signatures/sign.js';
import { signingKeysFrom } from '../signatures/signing-keys.js';
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
  statusCode: number | null;
  /** The body's first 64 KiB, secrets masked. */
  preview: string | null;
  headers: Record<string, string> | null;
  /** The body as received (unmasked: checks read it as it is), null without a response. */
  bodyText: string | null;
  /** The attempt's one masker and what is left of its one JSONPath budget, for whatever reads the body next. */
  masker: SecretMasker;
  budget: JsonPathBudget;
}

function unsent(verdict: AttemptVerdict): SentAttempt {
  return { verdict, request: null, latencyMs: 0, statusCode: null, preview: null, headers: null, bodyText: null, masker: secretMasker([]), budget: jsonPathBudget() };
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
 * One attempt, whatever kind of job makes it: sign the rendered request, send it under the claim's
 * lease, decide success, retry or failure (the job's retry policy, then the checks), and mask what is
 * kept (the request sent, the preview, headers, the verdict's message). Request jobs and workflow http steps both come
 * through here, so a rule added here (masking, budgets) holds for both.
 */
export async function sendAttempt(deps: RunnerDeps, exe: ClaimedExecution, rendered: RenderedRequest, checks: AnswerChecks, number: number): Promise<SentAttempt> {
  // No request was made, and retrying cannot bring the credential back.
  const refused = (errorClass: 'SECRET_NOT_FOUND' | 'BLOCKED_TARGET', message: string) =>
    unsent({ status: 'CONNECTION_ERROR', errorClass, errorMessage: message, outcome: 'failed' });
  if ('error' in rendered) return refused(rendered.errorClass, rendered.error);
  const signed = signature(deps, exe, rendered.request);
  if ('error' in signed) return refused('SECRET_NOT_FOUND', signed.error);
  // One trace per execution, a span per attempt (docs/OPERATIONS.md, "Traces").
  const trace = traceparent(exe.id);
  const request = withTraceparent(withSignature(rendered.request, signed.headers), trace);
  const sentRequest = recordedRequest(withTraceparent(withSignature(rendered.shown, signed.headers), trace));

  const result = await withLease(deps, exe, () => deps.http.send(request));
  const bodyText = result.kind === 'response' ? result.body.toString('utf8') : null;
  // One masker and one JSONPath budget serve the whole attempt: the checks mask what they quote
  // before cutting it, and the checks, the output template and a step's extraction share the budget.
  const masker = secretMasker(rendered.secretValues);
  const budget = jsonPathBudget();
  const decided = decideAttempt(result, bodyText ?? '', checks, exe.retryPolicy, number, { masker, budget });
  const verdict = { ...decided, errorMessage: decided.errorMessage === null ? null : masker.mask(decided.errorMessage) };
  if (result.kind !== 'response') return { ...unsent(verdict), request: sentRequest, latencyMs: result.latencyMs, masker, budget };
  return {
    verdict,
    request: sentRequest,
    latencyMs: result.latencyMs,
    statusCode: result.statusCode,
    preview: maskedPreview(bodyText ?? '', masker),
    headers: maskSecretHeaders(result.headers, masker),
    bodyText,
    masker,
    budget,
  };
}

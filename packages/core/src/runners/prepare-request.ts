import type { Config } from '../config/config.js';
import type { Db } from '../db/client.js';
import type { OutboundRequest } from '../http/http-client.js';
import type { RequestSpec } from '@cronsvc/contracts';
import { maskedSecretValues } from '../secrets/mask-secrets.js';
import { resolveSecrets } from '../secrets/resolve-secrets.js';
import { jobSecretBytesProblem } from '../secrets/secret-value.js';
import { findReferences, referencedSecretNames, renderRequest } from '../templates/template.js';
import { buildRequest } from '../http/build-request.js';
import type { ExecutionVariables } from '../executions/execution-variables.js';

export type PreparedRequest =
  | { ok: true; request: OutboundRequest; secretValues: string[]; shown: OutboundRequest }
  | { ok: false; errorClass: 'SECRET_NOT_FOUND'; message: string };

/**
 * Renders a job's request for one attempt and encodes it like buildRequest. Secrets are read
 * at request time, so a changed value is used by the next attempt; `secretValues` are the
 * plaintexts used, for the caller to mask in what it stores; `shown`, the request to record, has
 * [secret] in their place. A secret deleted since the job was
 * saved fails with SECRET_NOT_FOUND, whose message names the secret and never holds a value; so
 * do secrets that grew past MAX_JOB_SECRET_BYTES in total since then.
 */
export async function prepareRequest(
  deps: { db: Db; config: Config },
  input: { workspaceId: string; executionId: string; spec: RequestSpec; variables: ExecutionVariables },
): Promise<PreparedRequest> {
  const { spec, executionId } = input;
  const names = referencedSecretNames(findReferences(spec));
  const { values: secrets, missing } = await resolveSecrets(deps, input.workspaceId, names);
  if (missing.length > 0) {
    const list = missing.map((n) => `"${n}"`).join(', ');
    const what = missing.length === 1 ? `secret ${list} no longer exists` : `secrets ${list} no longer exist`;
    return { ok: false, errorClass: 'SECRET_NOT_FOUND', message: `${what} in the workspace (referenced by the job's request)` };
  }
  // Checked when the job was saved; a secret may have grown since.
  const tooMuch = jobSecretBytesProblem(new Map([...secrets].map(([name, value]) => [name, Buffer.byteLength(value, 'utf8')])));
  if (tooMuch) return { ok: false, errorClass: 'SECRET_NOT_FOUND', message: `${tooMuch}; a secret grew since the job was saved` };
  const build = (values: ReadonlyMap<string, string>) =>
    buildRequest({ ...spec, ...renderRequest(spec, { ...input.variables, execution_id: executionId, secrets: values }) }, executionId, input.workspaceId);
  const request = build(secrets);
  // What the attempt records: the same request with [secret] where each value went.
  return { ok: true, request, secretValues: [...secrets.values()], shown: secrets.size === 0 ? request : build(maskedSecretValues(secrets)) };
}

import type { Db, Prisma } from '../db/client.js';
import { AppError, type ErrorDetail } from '../errors/app-error.js';
import { storedValueBytes } from '../secrets/crypto.js';
import { jobSecretBytesProblem } from '../secrets/secret-value.js';
import { findReferences, unknownVariableProblems, type Reference } from '../templates/template.js';
import type { JobInput } from './job-schema.js';

async function missingSecretProblems(db: Db | Prisma.TransactionClient, workspaceId: string, references: Reference[]): Promise<ErrorDetail[]> {
  const used = references.flatMap((r) => (r.variable?.kind === 'secret' ? [{ path: r.path, name: r.variable.name }] : []));
  if (used.length === 0) return [];
  const names = [...new Set(used.map((u) => u.name))];
  const rows = await db.secret.findMany({ where: { workspaceId, name: { in: names } }, select: { name: true, value: true } });
  const sizes = new Map(rows.map((r) => [r.name, storedValueBytes(r.value)]));
  const problems = used
    .filter((u) => !sizes.has(u.name))
    .map((u) => ({ path: u.path, message: `secret "${u.name}" does not exist in this workspace` }));
  const tooMuch = jobSecretBytesProblem(sizes);
  if (tooMuch) problems.push({ path: 'request', message: tooMuch });
  return problems;
}

/**
 * Save-time checks of a request's placeholders (DECISIONS D5): every one names a known variable
 * and every secret exists in the workspace. Every problem is reported at once, each at its exact
 * path. (That the URL is still an http(s) URL once rendered is the job schema's url rule, run
 * on placeholderSafeUrl(url).)
 */
export async function checkJobReferences(db: Db | Prisma.TransactionClient, workspaceId: string, job: Pick<JobInput, 'request'>): Promise<void> {
  if (!job.request) return;
  const references = findReferences(job.request);
  const problems = unknownVariableProblems(references);
  problems.push(...(await missingSecretProblems(db, workspaceId, references)));
  if (problems.length > 0) throw AppError.validation(problems);
}

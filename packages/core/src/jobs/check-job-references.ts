import type { Db, Prisma } from '../db/client.js';
import { AppError, type ErrorDetail } from '../errors/app-error.js';
import { storedValueBytes } from '../secrets/crypto.js';
import { jobSecretBytesProblem } from '../secrets/secret-value.js';
import { stepTemplateProblems } from '../templates/step-template.js';
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
 * Save-time checks of a job's placeholders (docs/JOBS.md, "Variables and secrets"; docs/WORKFLOWS.md for steps): every
 * one names a known variable (for steps also `context` and, in webhook_trigger jobs, `trigger`)
 * and every secret exists in the workspace. Every problem is reported at once, each at its exact
 * path. (That a URL is still an http(s) URL once rendered is the job schema's url rule, run
 * on placeholderSafeUrl(url).)
 */
export async function checkJobReferences(db: Db | Prisma.TransactionClient, workspaceId: string, job: Pick<JobInput, 'kind' | 'request' | 'steps'>): Promise<void> {
  const problems: ErrorDetail[] = [];
  const references: Reference[] = [];
  if (job.request) {
    references.push(...findReferences(job.request));
    problems.push(...unknownVariableProblems(references));
  }
  if (job.steps) {
    const found = stepTemplateProblems(job.steps, job.kind);
    problems.push(...found.problems);
    references.push(...found.secrets.map((s) => ({ path: s.path, placeholder: `{{secret.${s.name}}}`, variable: { kind: 'secret' as const, name: s.name } })));
  }
  problems.push(...(await missingSecretProblems(db, workspaceId, references)));
  if (problems.length > 0) throw AppError.validation(problems);
}

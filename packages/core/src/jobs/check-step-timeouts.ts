import type { Step } from '@cronsvc/contracts';
import { AppError, type ErrorDetail } from '../errors/app-error.js';
import { DEFAULT_MAX_WORKFLOW_DURATION_SECONDS } from './job-schema.js';

/**
 * A wait or approval whose timeout_seconds is not below the job's max_workflow_duration_seconds
 * can never time out: the run's deadline, counted from the run's start, comes first and fails the
 * run WORKFLOW_TIMEOUT instead of doing what on_timeout says. Such a job is refused, naming both
 * fields, so that the timeout a person wrote is the one that happens (docs/WORKFLOWS.md,
 * "Timeouts"). An http step's timeout_seconds is per attempt and may be cut short by the deadline
 * like any other step; it is not checked here.
 */
export function stepTimeoutProblems(job: { steps?: Step[]; max_workflow_duration_seconds?: number }): ErrorDetail[] {
  const deadline = job.max_workflow_duration_seconds;
  if (!job.steps || deadline === undefined) return [];
  const late = job.steps
    .map((step, index) => ({ index, timeout: step.type === 'http' ? undefined : step.timeout_seconds }))
    .filter((s): s is { index: number; timeout: number } => s.timeout !== undefined && s.timeout >= deadline);
  if (late.length === 0) return [];
  const deadlineText = `max_workflow_duration_seconds (${deadline} s${deadline === DEFAULT_MAX_WORKFLOW_DURATION_SECONDS ? ', the default' : ''})`;
  const longest = late.reduce((a, b) => (b.timeout > a.timeout ? b : a));
  return [
    ...late.map(({ index, timeout }) => ({
      path: `steps[${index}].timeout_seconds`,
      message: `is ${timeout} s, not less than ${deadlineText}: the run's deadline would end the wait first (WORKFLOW_TIMEOUT), so it could never time out; lower it, or raise max_workflow_duration_seconds (up to 7200)`,
    })),
    {
      path: 'max_workflow_duration_seconds',
      message: `is ${deadline} s${deadline === DEFAULT_MAX_WORKFLOW_DURATION_SECONDS ? ' (the default)' : ''}, not more than steps[${longest.index}].timeout_seconds (${longest.timeout} s): raise it above the longest wait (up to 7200), or lower that timeout`,
    },
  ];
}

export function checkStepTimeouts(job: Parameters<typeof stepTimeoutProblems>[0]): void {
  const problems = stepTimeoutProblems(job);
  if (problems.length > 0) throw AppError.validation(problems);
}

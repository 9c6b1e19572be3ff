import type { Config } from '../config/config.js';
import { AppError, type ErrorDetail } from '../errors/app-error.js';
import { isBlockedLiteralHost, PRIVATE_TARGET_MESSAGE } from '../http/target-guard.js';
import { placeholderSafeUrl } from '../templates/template.js';
import type { JobInput } from './job-schema.js';

/** Rejects at save time the targets that can never be called: localhost and private literal addresses. */
export function checkJobTargets(config: Pick<Config, 'allowPrivateTargets'>, job: Pick<JobInput, 'request' | 'steps' | 'on_success_url' | 'on_failure_url'>): void {
  if (config.allowPrivateTargets) return;
  const problems: ErrorDetail[] = [];
  const check = (path: string, url: string | null | undefined) => {
    if (url && isBlockedLiteralHost(url)) problems.push({ path, message: PRIVATE_TARGET_MESSAGE });
  };
  // Placeholders are not URL syntax (a `{` in the host does not parse); the host they leave is checked
  // again on the resolved address at connect time.
  check('request.url', job.request ? placeholderSafeUrl(job.request.url) : undefined);
  job.steps?.forEach((step, i) => check(`steps[${i}].url`, step.type === 'http' ? placeholderSafeUrl(step.url) : undefined));
  check('on_success_url', job.on_success_url);
  check('on_failure_url', job.on_failure_url);
  if (problems.length > 0) throw AppError.validation(problems);
}

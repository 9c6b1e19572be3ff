// What other packages may use of workflows/; the other modules here are internal to @cronsvc/core.
export { decideApproval } from './decide-approval.js';
export { expireWaits } from './expire-waits.js';
export { getApproval } from './get-approval.js';
export { parseInboundBody } from './inbound-request.js';
export { getJobContext, patchJobContext } from './job-context.js';
export { checkTriggerSecret, findTrigger, startTriggeredRun, type TriggerJob } from './receive-trigger.js';
export { resumeByToken, unknownResumeToken } from './resume-wait.js';
export { waitTokenKnown } from './wait-tokens.js';

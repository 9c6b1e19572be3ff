// What other packages may use of workflows/; the other modules here are internal to @cronsvc/core.
export { decideApproval } from './decide-approval.js';
export { expireWaits } from './expire-waits.js';
export { getApproval } from './get-approval.js';
export { parseInboundBody } from './inbound-request.js';
export { getJobContext, patchJobContext } from './job-context.js';
export { receiveTrigger } from './receive-trigger.js';
export { resumeByToken } from './resume-wait.js';

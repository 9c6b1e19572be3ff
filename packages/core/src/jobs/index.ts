// What other packages may use of jobs/; the other modules here are internal to @cronsvc/core.
export { applyJobs, exportJobs } from './apply-jobs.js';
export { createJob } from './create-job.js';
export { IMPORT_NOTES, importCrontab } from './import-crontab.js';
export { deleteJob, pauseJob, resumeJob } from './job-lifecycle.js';
export { type JobInput, jobSchema } from './job-schema.js';
export { findJob } from './job-store.js';
export { listJobs } from './list-jobs.js';
export { countTagged, listTags, pauseTag, resumeTag } from './tagged-jobs.js';
export { serializeJob, serializeJobSummary } from './serialize-job.js';
export { upcomingFires } from './upcoming-fires.js';
export { updateJob } from './update-job.js';

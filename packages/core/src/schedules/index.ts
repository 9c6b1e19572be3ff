// What other packages may use of schedules/; the other modules here are internal to @cronsvc/core.
export { fireDueJobs } from './fire-due-jobs.js';

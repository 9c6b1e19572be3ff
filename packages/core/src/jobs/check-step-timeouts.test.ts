import type { Step } from '@cronsvc/contracts';
import { stepTimeoutProblems } from './check-step-timeouts.js';

const http: Step = { id: 'build', type: 'http', url: 'https://example.com/', method: 'POST', headers: {}, timeout_seconds: 300, success_statuses: [200] };
const approval = (timeout_seconds?: number): Step => ({ id: 'approve', type: 'approval', message: 'ok?', on_timeout: 'reject', ...(timeout_seconds === undefined ? {} : { timeout_seconds }) });
const wait = (timeout_seconds?: number): Step => ({ id: 'callback', type: 'wait_for_webhook', on_timeout: 'continue', ...(timeout_seconds === undefined ? {} : { timeout_seconds }) });

describe('stepTimeoutProblems', () => {
  it('accepts waits that time out before the run deadline, waits without a timeout, and jobs without steps', () => {
    expect(stepTimeoutProblems({ steps: [http, approval(1799), wait(60), wait()], max_workflow_duration_seconds: 1800 })).toEqual([]);
    expect(stepTimeoutProblems({})).toEqual([]);
  });

  it('does not hold an http step to it: its timeout is per attempt', () => {
    expect(stepTimeoutProblems({ steps: [http], max_workflow_duration_seconds: 60 })).toEqual([]);
  });

  it('names the wait and the deadline when the deadline would end the wait first, saying which is the default', () => {
    expect(stepTimeoutProblems({ steps: [http, approval(3600)], max_workflow_duration_seconds: 1800 })).toEqual([
      {
        path: 'steps[1].timeout_seconds',
        message:
          "is 3600 s, not less than max_workflow_duration_seconds (1800 s, the default): the run's deadline would end the wait first (WORKFLOW_TIMEOUT), so it could never time out; lower it, or raise max_workflow_duration_seconds (up to 7200)",
      },
      { path: 'max_workflow_duration_seconds', message: 'is 1800 s (the default), not more than steps[1].timeout_seconds (3600 s): raise it above the longest wait (up to 7200), or lower that timeout' },
    ]);
  });

  it('counts a timeout equal to the deadline as unreachable (the wait starts after the run), and names the longest of several', () => {
    const problems = stepTimeoutProblems({ steps: [wait(600), approval(900), wait(300)], max_workflow_duration_seconds: 600 });
    expect(problems.map((p) => p.path)).toEqual(['steps[0].timeout_seconds', 'steps[1].timeout_seconds', 'max_workflow_duration_seconds']);
    expect(problems[2].message).toBe('is 600 s, not more than steps[1].timeout_seconds (900 s): raise it above the longest wait (up to 7200), or lower that timeout');
  });
});

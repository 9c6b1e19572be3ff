import { approvalRequiredEvent } from './approval-required.js';

it('carries what the approval event of the notification payloads names, and nothing else', () => {
  const event = approvalRequiredEvent({
    job: { id: 'job_1', name: 'deploy' },
    executionId: 'exe_1',
    stepId: 'review',
    stepIndex: 2,
    message: 'Ship 1.2?',
    expiresAt: new Date('2030-01-01T01:00:00.000Z'),
    urls: { review_url: 'https://x/v1/approvals/apr_t', approve_url: 'https://x/v1/approvals/apr_t/approve', reject_url: 'https://x/v1/approvals/apr_t/reject' },
    at: new Date('2030-01-01T00:00:00.000Z'),
  });
  expect(event).toEqual({
    event: 'approval.required',
    job: { id: 'job_1', name: 'deploy' },
    execution: { id: 'exe_1', status: 'waiting', waiting_reason: 'approval' },
    approval: {
      step_id: 'review',
      step_index: 2,
      message: 'Ship 1.2?',
      expires_at: '2030-01-01T01:00:00.000Z',
      review_url: 'https://x/v1/approvals/apr_t',
      approve_url: 'https://x/v1/approvals/apr_t/approve',
      reject_url: 'https://x/v1/approvals/apr_t/reject',
    },
    timestamp: '2030-01-01T00:00:00.000Z',
  });
});

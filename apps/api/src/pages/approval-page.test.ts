import type { Approval } from '@cronsvc/contracts';
import { escapeHtml, renderApprovalPage, renderProblemPage } from './approval-page.js';

const HOSTILE = `<script>x</script>"'&`;

const view = (extra: Partial<Approval> = {}): Approval => ({
  status: 'pending',
  execution_id: `exe_${HOSTILE}`,
  execution_status: 'waiting',
  job: { id: 'job_1', name: HOSTILE },
  step_id: HOSTILE,
  step_index: 1,
  message: HOSTILE,
  requested_at: '2030-01-01T00:00:00.000Z',
  expires_at: null,
  decided_at: null,
  review_url: 'https://x/v1/approvals/apr_1',
  approve_url: 'https://x/v1/approvals/apr_1/approve',
  reject_url: 'https://x/v1/approvals/apr_1/reject',
  previous_steps: [{ step_id: HOSTILE, step_index: 0, type: HOSTILE, status: HOSTILE, status_code: 200, finished_at: null }],
  ...extra,
});

it('escapes the five characters that matter in HTML text and attributes', () => {
  expect(escapeHtml(HOSTILE)).toBe('&lt;script&gt;x&lt;/script&gt;&quot;&#39;&amp;');
});

it('escapes everything that comes from a job, a run or a sender', () => {
  const html = renderApprovalPage(view(), { approve: '/a?"x', reject: '/r' }, HOSTILE) + renderProblemPage(HOSTILE, HOSTILE);
  expect(html).not.toContain('<script>');
  expect(html).not.toContain(`"'&`);
  expect(html).toContain('action="/a?&quot;x"');
});

it('offers both decisions while pending and none once decided', () => {
  expect(renderApprovalPage(view(), { approve: '/a', reject: '/r' })).toMatch(/<form method="post" action="\/a">[\s\S]*formaction="\/r"/);
  const decided = renderApprovalPage(view({ status: 'approved', decided_at: '2030-01-01T00:01:00.000Z' }), { approve: '/a', reject: '/r' });
  expect(decided).not.toContain('<form');
  expect(decided).toContain('This approval is <span class="badge approved">approved</span>');
});

import { aChannel, renderInBrowser } from '@cronsvc/core/testing';
import { allSettled, deliveriesOf, jobWithRules, runToEnd, useNotifierFixture } from './notifier-fixture.js';

const f = useNotifierFixture();

// A job name that would break out of HTML, and a response body to match.
const NAME = 'Nightly <script>alert("x")</script> & export';

describe('email notifications', () => {
  it('sends a real HTML message with a text part, through SMTP, and it renders in a browser as a person should see it', async () => {
    const channel = await aChannel(f.ctx.runtime, f.workspace.id, 'email', { email: 'ops@example.com' });
    const job = await jobWithRules(f, 503, [[channel.id, 'on_failure']], { name: NAME });
    const executionId = await runToEnd(f, job.id);
    const [delivery] = await deliveriesOf(f, executionId, allSettled(1));
    expect(delivery).toMatchObject({ status: 'sent', last_status_code: 250 });

    expect(f.smtp.mails).toHaveLength(1);
    const { envelope, parsed } = f.smtp.mails[0];
    expect(envelope).toEqual({ from: 'cron@example.com', to: ['ops@example.com'] });
    expect(parsed.from?.text).toBe('"Cron Service" <cron@example.com>');
    expect(parsed.to && 'text' in parsed.to ? parsed.to.text : null).toBe('ops@example.com');
    expect(parsed.subject).toBe(`[cron-service] Job "${NAME}" failed`);
    expect(parsed.messageId).toBe(`<${delivery.id}@cron-service>`);
    expect(parsed.headers.get('content-type')).toMatchObject({ value: 'multipart/alternative' });

    const html = parsed.html as string;
    expect(html).toContain('Nightly &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; export');
    expect(html).not.toContain('<script>');
    expect(html).toContain(`href="https://cron.example.com/v1/executions/${executionId}"`);
    const text = parsed.text as string;
    expect(text).toContain(`Job "${NAME}" failed`);
    expect(text).toMatch(/Status:\s+failed \(HTTP 503\)/);
    expect(text).toMatch(/Attempts:\s+1/);
    expect(text).toMatch(/Error:\s+HTTP_5XX/);
    expect(text).toMatch(/Error message:\s+status 503 is not a success status/);
    expect(text).toContain(`View execution: https://cron.example.com/v1/executions/${executionId}`);

    const { seen } = await renderInBrowser(
      html,
      'email-execution-failed',
      `(() => {
        const header = document.querySelector('td[style*="background:#cf222e"]');
        const rows = [...document.querySelectorAll('th')].map((th) => [th.innerText.trim(), th.nextElementSibling.innerText.trim()]);
        const link = [...document.querySelectorAll('a')].find((a) => a.innerText.includes('View execution'));
        return {
          headerColour: header && getComputedStyle(header).backgroundColor,
          headerText: header && header.innerText,
          rows,
          scripts: document.querySelectorAll('script').length,
          linkVisible: !!link && link.getBoundingClientRect().height > 0,
          pageWidth: document.documentElement.scrollWidth,
        };
      })()`,
    );
    expect(seen).toMatchObject({
      headerColour: 'rgb(207, 34, 46)',
      headerText: expect.stringContaining(`Job "${NAME}" failed`),
      scripts: 0,
      linkVisible: true,
    });
    const rows = Object.fromEntries((seen as { rows: [string, string][] }).rows);
    expect(rows).toMatchObject({ Job: NAME, Status: 'failed (HTTP 503)', Attempts: '1', Error: 'HTTP_5XX', 'Error message': 'status 503 is not a success status' });
    expect(Object.keys(rows)).toEqual(['Job', 'Status', 'Scheduled', 'Started', 'Finished', 'Duration', 'Attempts', 'Error', 'Error message']);
    // Nothing wider than the viewport: no horizontal scrolling.
    expect((seen as { pageWidth: number }).pageWidth).toBeLessThanOrEqual(700);
  });

  it('retries a message the SMTP server defers (4xx), and fails one it refuses (5xx) at once', async () => {
    const channel = await aChannel(f.ctx.runtime, f.workspace.id, 'email', { email: 'ops@example.com' });
    f.smtp.refuseNext({ code: 451, message: 'try again later' });
    const job = await jobWithRules(f, 200, [[channel.id, 'on_success']]);
    const [deferred] = await deliveriesOf(f, await runToEnd(f, job.id), allSettled(1));
    expect(deferred).toMatchObject({ status: 'sent', attempts: 2 });
    expect(f.smtp.mails).toHaveLength(1);

    f.smtp.refuseNext({ code: 550, message: 'no such user' });
    const [refused] = await deliveriesOf(f, await runToEnd(f, job.id), allSettled(1));
    expect(refused).toMatchObject({ status: 'failed', attempts: 1, last_status_code: 550, last_error: expect.stringContaining('no such user') });
  });
});

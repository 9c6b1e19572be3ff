import { capturingLogger as capturing } from '../../test/capturing-logger.js';
import { withLogContext } from './log-context.js';

describe('createLogger', () => {
  it.each([true, false])('keeps the message and stack of an Error in the metadata (production %s)', (production) => {
    const { logger, lines } = capturing(production);
    const error = Object.assign(new Error('database went away'), { code: 'ECONNREFUSED' });
    logger.error('unhandled error', { requestId: 'r1', error });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('database went away');
    expect(lines[0]).toContain('ECONNREFUSED');
    expect(lines[0]).toMatch(/at .*logger\.test\.ts/);
    expect(lines[0]).not.toContain('"error":{}');
  });

  it('still redacts credentials, also inside an Error', () => {
    const { logger, lines } = capturing(true);
    logger.warn('call failed', { headers: { Authorization: 'Bearer csk_live' }, error: Object.assign(new Error('x'), { token: 'csk_live' }) });
    expect(lines[0]).not.toContain('csk_live');
    expect(lines[0]).toContain('[redacted]');
  });

  it('writes production lines as JSON with time, level, msg, service and the request id of its scope', () => {
    const { logger, lines } = capturing(true);
    withLogContext({ requestId: 'req-1' }, () => logger.info('job created', { jobId: 'job_1' }));
    logger.info('outside any request');
    const [inside, outside] = lines.map((line) => JSON.parse(line));
    expect(inside).toEqual({ time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), level: 'info', msg: 'job created', service: 'test', request_id: 'req-1', jobId: 'job_1' });
    expect(outside).not.toHaveProperty('request_id');
    expect(outside.msg).toBe('outside any request');
  });

  it('carries the request id on readable lines too, through awaits', async () => {
    const { logger, lines } = capturing(false);
    await withLogContext({ requestId: 'req-2' }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      logger.warn('later in the same request');
    });
    expect(lines[0]).toMatch(/warn \[test\] later in the same request .*"request_id":"req-2"/);
  });
});

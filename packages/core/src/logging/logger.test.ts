import { capturingLogger as capturing } from '../../test/capturing-logger.js';

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
});

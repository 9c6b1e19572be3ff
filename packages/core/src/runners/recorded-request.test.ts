import { PREVIEW_BYTES } from '../http/http-client.js';
import { recordedRequest } from './recorded-request.js';

const request = { url: 'https://x.test/a?k=[secret]', workspaceId: 'wsp_1', method: 'POST', headers: { 'X-Key': '[secret]' }, timeoutMs: 1000 };

describe('recordedRequest', () => {
  it('keeps the method, URL, headers and a body that fits, and not the workspace or the timeout', () => {
    expect(recordedRequest({ ...request, body: '{"a":1}' })).toEqual({ method: 'POST', url: 'https://x.test/a?k=[secret]', headers: { 'X-Key': '[secret]' }, body: '{"a":1}', bodyTruncated: false });
    expect(recordedRequest({ ...request, body: null })).toMatchObject({ body: null, bodyTruncated: false });
  });

  it('cuts a body past 64 KiB at a character boundary, and says so', () => {
    const body = `${'a'.repeat(PREVIEW_BYTES - 1)}é and more`;
    const recorded = recordedRequest({ ...request, body });
    expect(recorded.body).toBe('a'.repeat(PREVIEW_BYTES - 1));
    expect(recorded.bodyTruncated).toBe(true);
    expect(recordedRequest({ ...request, body: 'é'.repeat(PREVIEW_BYTES / 2) }).bodyTruncated).toBe(false);
  });
});

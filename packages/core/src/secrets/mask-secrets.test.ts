import { maskSecretHeaders, maskSecrets } from './mask-secrets.js';

describe('maskSecrets', () => {
  it('replaces every occurrence of each secret value with [secret]', () => {
    expect(maskSecrets('token=sk_live_1; again sk_live_1; pw=hunter22', ['sk_live_1', 'hunter22'])).toBe(
      'token=[secret]; again [secret]; pw=[secret]',
    );
  });

  it('masks the longest value first, so a secret containing another is masked whole', () => {
    expect(maskSecrets('abcdefgh and abcd', ['abcd', 'abcdefgh'])).toBe('[secret] and [secret]');
  });

  it('leaves values shorter than 4 characters unmasked', () => {
    expect(maskSecrets('yes, 123 and abcd', ['yes', '123', 'abcd'])).toBe('yes, 123 and [secret]');
  });

  it('masks a value echoed back JSON-escaped or percent-encoded', () => {
    const value = 'p"a\\ss w/rd';
    const echoed = `${JSON.stringify({ got: value })} url=/x?k=${encodeURIComponent(value)}`;
    const masked = maskSecrets(echoed, [value]);
    expect(masked).toBe('{"got":"[secret]"} url=/x?k=[secret]');
  });

  it('treats regex characters in a value literally', () => {
    expect(maskSecrets('a.b*c(d) axbbc', ['a.b*c(d)'])).toBe('[secret] axbbc');
  });

  it('does not mask again inside [secret] when a value is a substring of the mask', () => {
    expect(maskSecrets('top secret here', ['secret', 'top secret'])).toBe('[secret] here');
  });

  it('returns the text unchanged when there is nothing to mask', () => {
    expect(maskSecrets('nothing here', [])).toBe('nothing here');
  });
});

describe('maskSecretHeaders', () => {
  it('masks header values and keeps header names', () => {
    expect(maskSecretHeaders({ 'x-request-id': 'sk_live_1', 'content-type': 'text/plain' }, ['sk_live_1'])).toEqual({
      'x-request-id': '[secret]',
      'content-type': 'text/plain',
    });
  });
});

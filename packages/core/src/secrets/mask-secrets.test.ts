import { PREVIEW_BYTES } from '../http/http-client.js';
import { maskedPreview, maskJson, maskSecretHeaders, maskSecrets, secretMasker, utf8Prefix } from './mask-secrets.js';

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
  it('takes the secret values as well as a masker', () => {
    expect(maskSecretHeaders({ 'x-echo': 'a hunter22 b' }, ['hunter22'])).toEqual({ 'x-echo': 'a [secret] b' });
  });

  it('masks header values and keeps header names', () => {
    expect(maskSecretHeaders({ 'x-request-id': 'sk_live_1', 'content-type': 'text/plain' }, secretMasker(['sk_live_1']))).toEqual({
      'x-request-id': '[secret]',
      'content-type': 'text/plain',
    });
  });
});

describe('maskSecrets with secrets that overlap in the text', () => {
  it('masks both when one secret ends inside another', () => {
    // Masked one after the other, leftmost first, "123secretvalue" would keep "secretvalue".
    expect(maskSecrets('id=xyz123secretvalue;', ['xyz123', '123secretvalue'])).toBe('id=[secret];');
  });
});

describe('maskedPreview', () => {
  const secret = 'sk_live_0123456789abcdef';

  it('masks a secret that straddles the 64 KiB edge before cutting', () => {
    const body = `${'a'.repeat(PREVIEW_BYTES - 10)}${secret}${'b'.repeat(1000)}`;
    const preview = maskedPreview(body, secretMasker([secret]));
    // Compared as booleans: a failure should not print 64 KiB.
    expect(preview.startsWith(`${'a'.repeat(PREVIEW_BYTES - 10)}[secret]b`)).toBe(true);
    expect(preview.includes(secret.slice(0, 8))).toBe(false);
    expect(Buffer.byteLength(preview)).toBe(PREVIEW_BYTES);
  });

  it('removes NUL characters before masking, so they cannot split a secret', () => {
    const body = `x ${secret.slice(0, 5)}\u0000${secret.slice(5)} y`;
    expect(maskedPreview(body, secretMasker([secret]))).toBe('x [secret] y');
  });

  it('keeps at most 64 KiB of UTF-8 and never cuts a character', () => {
    const preview = maskedPreview(`a${'é'.repeat(PREVIEW_BYTES)}`, secretMasker([]));
    expect(Buffer.byteLength(preview, 'utf8')).toBe(PREVIEW_BYTES - 1);
    expect(preview.includes('\uFFFD')).toBe(false);
    expect(utf8Prefix('aé', 2)).toBe('a');
  });
});

describe('maskJson', () => {
  it('masks strings, keys and numbers whose text is a secret', () => {
    const masker = secretMasker(['hunter22', '12345678']);
    expect(maskJson({ pw: 'pw=hunter22', hunter22: 1, pin: 12345678, list: ['hunter22', true, null] }, masker)).toEqual({
      pw: 'pw=[secret]',
      '[secret]': 1,
      pin: '[secret]',
      list: ['[secret]', true, null],
    });
  });
});

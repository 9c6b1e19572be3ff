import { randomBytes } from 'node:crypto';
import { DecryptionError, decryptValue, encryptValue, isEncrypted } from './crypto.js';

const key = randomBytes(32);

describe('secret encryption', () => {
  it('round-trips a value and never stores it in the clear', () => {
    const stored = encryptValue(key, 'sk_live_123 ünïcode');
    expect(isEncrypted(stored)).toBe(true);
    expect(stored).not.toContain('sk_live_123');
    expect(decryptValue(key, stored)).toBe('sk_live_123 ünïcode');
  });

  it('uses a fresh IV each time, so equal values encrypt differently', () => {
    expect(encryptValue(key, 'same')).not.toBe(encryptValue(key, 'same'));
  });

  it('refuses a wrong key and altered ciphertext', () => {
    const stored = encryptValue(key, 'value');
    expect(() => decryptValue(randomBytes(32), stored)).toThrow(DecryptionError);
    const raw = Buffer.from(stored.slice(5), 'base64');
    raw[raw.length - 1] ^= 1;
    expect(() => decryptValue(key, `enc1:${raw.toString('base64')}`)).toThrow(DecryptionError);
    expect(() => decryptValue(key, 'plain')).toThrow(DecryptionError);
  });
});

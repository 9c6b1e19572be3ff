import { randomBytes } from 'node:crypto';
import { legacyEncrypted } from '../../test/legacy-values.js';
import { DecryptionError, decryptValue, derivedKeys, encryptValue, isCurrentFormat, isEncrypted, storedValueBytes, valuePlace } from './crypto.js';

const key = randomBytes(32);
const here = valuePlace('secrets.value', 'wsp_a', 'sec_1');

describe('value encryption', () => {
  it('round-trips a value in its place and never stores it in the clear', () => {
    const stored = encryptValue(key, 'sk_live_123 ünïcode', here);
    expect(stored).toMatch(/^enc2:/);
    expect(isEncrypted(stored) && isCurrentFormat(stored)).toBe(true);
    expect(stored).not.toContain('sk_live_123');
    expect(decryptValue(key, stored, here)).toBe('sk_live_123 ünïcode');
    expect(storedValueBytes(stored)).toBe(Buffer.byteLength('sk_live_123 ünïcode'));
  });

  it('uses a fresh IV each time, so equal values encrypt differently', () => {
    expect(encryptValue(key, 'same', here)).not.toBe(encryptValue(key, 'same', here));
  });

  it('refuses a wrong key and altered ciphertext', () => {
    const stored = encryptValue(key, 'value', here);
    expect(() => decryptValue(randomBytes(32), stored, here)).toThrow(DecryptionError);
    const raw = Buffer.from(stored.slice(5), 'base64');
    raw[raw.length - 1] ^= 1;
    expect(() => decryptValue(key, `enc2:${raw.toString('base64')}`, here)).toThrow(DecryptionError);
    expect(() => decryptValue(key, 'plain', here)).toThrow(DecryptionError);
  });

  it('opens a value only in the row, column and workspace it was written for', () => {
    const stored = encryptValue(key, 'value', here);
    for (const elsewhere of [
      valuePlace('secrets.value', 'wsp_b', 'sec_1'),
      valuePlace('secrets.value', 'wsp_a', 'sec_2'),
      valuePlace('jobs.webhook_token', 'wsp_a', 'sec_1'),
      // The separator cannot be shifted to make two places read alike.
      valuePlace('secrets.value', 'wsp_a:sec_1', ''),
    ]) {
      expect(() => decryptValue(key, stored, elsewhere)).toThrow(DecryptionError);
    }
  });

  it('encrypts under a key derived for encryption alone, never under SECRETS_ENCRYPTION_KEY itself', () => {
    const derived = derivedKeys(key);
    expect(derived.encryption.equals(key)).toBe(false);
    expect(derived.webhookSecretMac.equals(key)).toBe(false);
    expect(derived.webhookSecretMac.equals(derived.encryption)).toBe(false);
    expect(new Set([key, derived.encryption, derived.webhookSecretMac, derived.channelDestinationMac].map((k) => k.toString('hex'))).size).toBe(4);
    expect(derivedKeys(Buffer.from(key)).encryption.equals(derived.encryption)).toBe(true);
  });

  it('still opens enc1: values written before, wherever they are read', () => {
    const old = legacyEncrypted(key, 'from before');
    expect(isEncrypted(old)).toBe(true);
    expect(isCurrentFormat(old)).toBe(false);
    expect(decryptValue(key, old, here)).toBe('from before');
    expect(() => decryptValue(randomBytes(32), old, here)).toThrow(DecryptionError);
  });
});

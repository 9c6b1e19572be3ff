import { encryptValue } from '../secrets/crypto.js';
import { generateSigningKey, openSigningKey, signingKeyBytes, signingKeyPlace } from './signing-key-format.js';

describe('signing key format', () => {
  it('generates whsec_ + base64 of 32 random bytes, different each time', () => {
    const key = generateSigningKey();
    expect(key).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(signingKeyBytes(key)).toHaveLength(32);
    expect(generateSigningKey()).not.toBe(key);
  });

  it('uses the base64-decoded part after the prefix as the HMAC key', () => {
    expect(signingKeyBytes('whsec_AAECAw==')).toEqual(Buffer.from([0, 1, 2, 3]));
    expect(() => signingKeyBytes('AAECAw==')).toThrow(/whsec_/);
  });

  it('opens an encrypted stored key in its own place only, and reads a bare whsec_ value stored before encryption as is', () => {
    const encryptionKey = Buffer.alloc(32, 7);
    const key = generateSigningKey();
    const current = signingKeyPlace('wsp_a', 'current');
    expect(openSigningKey(encryptionKey, encryptValue(encryptionKey, key, current), current)).toBe(key);
    expect(openSigningKey(encryptionKey, key, current)).toBe(key);
    expect(() => openSigningKey(Buffer.alloc(32, 8), encryptValue(encryptionKey, key, current), current)).toThrow();
    expect(() => openSigningKey(encryptionKey, encryptValue(encryptionKey, key, current), signingKeyPlace('wsp_b', 'current'))).toThrow();
    expect(() => openSigningKey(encryptionKey, encryptValue(encryptionKey, key, current), signingKeyPlace('wsp_a', 'previous'))).toThrow();
  });
});

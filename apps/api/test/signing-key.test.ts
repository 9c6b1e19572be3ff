import request from 'supertest';
import { createApp } from '../src/app.js';
import type { TestContext } from '@cronsvc/core/testing';
import { useApiApp } from './api-app.js';
import { ensureBootstrapWorkspace, loadSigningKeys, openSigningKey, rotateSigningKey, signingKeyBytes, signingKeyPlace, type Clock, type Db } from '@cronsvc/core';

let ctx: TestContext;
let app: ReturnType<typeof createApp>;
let now: Date;
const clock: Clock = { now: () => now };
const DAY_MS = 24 * 60 * 60 * 1000;
/** A stored key of workspace `id`, opened in its place (its current or previous column). */
const decrypt = (value: string | null, id: string, which: 'current' | 'previous' = 'current') => {
  expect(value).toMatch(ENCRYPTED);
  return openSigningKey(ctx.config.secretsEncryptionKey, value!, signingKeyPlace(id, which));
};

const api = useApiApp();
beforeAll(() => {
  ({ ctx } = api);
  app = createApp({ ...ctx.runtime, clock });
});
beforeEach(() => {
  now = new Date('2030-01-02T03:04:05.678Z');
});

const auth = (token: string) => ({ Authorization: `Bearer ${token}` });
const stored = (id: string) => ctx.runtime.db.workspace.findUniqueOrThrow({ where: { id } });
const keysAt = (id: string, at: Date) => loadSigningKeys(ctx.runtime.db, ctx.config.secretsEncryptionKey, id, at);
const KEY_FORMAT = /^whsec_[A-Za-z0-9+/]{43}=$/;
// SECRETS_ENCRYPTION_KEY ciphertext, as secrets/crypto.ts writes it.
const ENCRYPTED = /^enc2:[A-Za-z0-9+/]+=*$/;
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('GET /v1/signing-key', () => {
  it('answers the workspace key as whsec_ + base64 of 32 bytes with created_at, the same each time', async () => {
    const ws = await ctx.workspace();
    const res = await request(app).get('/v1/signing-key').set(auth(ws.token));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'signing_key']);
    expect(res.body.signing_key).toMatch(KEY_FORMAT);
    expect(signingKeyBytes(res.body.signing_key)).toHaveLength(32);
    expect(res.body.created_at).toMatch(ISO_MS);
    expect(res.body.created_at).toBe((await stored(ws.id)).signingKeyCreatedAt.toISOString());
    expect((await request(app).get('/v1/signing-key').set(auth(ws.token))).body).toEqual(res.body);
  });

  it('stores the key encrypted, never as plaintext', async () => {
    const ws = await ctx.workspace();
    const key = (await request(app).get('/v1/signing-key').set(auth(ws.token))).body.signing_key as string;
    const row = await stored(ws.id);
    expect(row.signingKey).not.toContain(key.slice('whsec_'.length));
    expect(decrypt(row.signingKey, ws.id)).toBe(key);
  });

  it('stores the bootstrap workspace key encrypted too', async () => {
    const id = await ensureBootstrapWorkspace(ctx.runtime.db, ctx.config.secretsEncryptionKey, 'csk_signing_bootstrap');
    const row = await stored(id);
    expect(decrypt(row.signingKey, id)).toMatch(KEY_FORMAT);
  });

  it('answers 401 unauthorized without a valid token, on read and on rotate', async () => {
    for (const res of [
      await request(app).get('/v1/signing-key'),
      await request(app).post('/v1/signing-key/rotate'),
      await request(app).get('/v1/signing-key').set(auth('csk_wrong')),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
      expect(JSON.stringify(res.body)).not.toContain('whsec_');
    }
  });
});

describe('POST /v1/signing-key/rotate', () => {
  it('answers 200 with a new key, which GET then returns, created at the rotation time', async () => {
    const ws = await ctx.workspace();
    const before = (await request(app).get('/v1/signing-key').set(auth(ws.token))).body;
    const res = await request(app).post('/v1/signing-key/rotate').set(auth(ws.token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ signing_key: expect.stringMatching(KEY_FORMAT), created_at: now.toISOString() });
    expect(res.body.signing_key).not.toBe(before.signing_key);
    expect((await request(app).get('/v1/signing-key').set(auth(ws.token))).body).toEqual(res.body);
  });

  it('keeps the replaced key, encrypted, and signs with it too for 24 h only', async () => {
    const ws = await ctx.workspace();
    const old = (await request(app).get('/v1/signing-key').set(auth(ws.token))).body.signing_key as string;
    const rotatedAt = now;
    const fresh = (await request(app).post('/v1/signing-key/rotate').set(auth(ws.token))).body.signing_key as string;
    const row = await stored(ws.id);
    expect(row.signingKeyRotatedAt?.toISOString()).toBe(rotatedAt.toISOString());
    expect(decrypt(row.previousSigningKey, ws.id, 'previous')).toBe(old);
    expect(decrypt(row.signingKey, ws.id)).toBe(fresh);
    expect(row.signingKey).not.toContain(fresh.slice('whsec_'.length));

    const within = await keysAt(ws.id, new Date(rotatedAt.getTime() + DAY_MS - 1));
    expect(within).toEqual({ current: signingKeyBytes(fresh), previous: signingKeyBytes(old) });
    const after = await keysAt(ws.id, new Date(rotatedAt.getTime() + DAY_MS));
    expect(after).toEqual({ current: signingKeyBytes(fresh) });
  });

  it('makes the key just replaced the previous one when rotating twice within 24 h', async () => {
    const ws = await ctx.workspace();
    const first = (await request(app).get('/v1/signing-key').set(auth(ws.token))).body.signing_key as string;
    const second = (await request(app).post('/v1/signing-key/rotate').set(auth(ws.token))).body.signing_key as string;
    now = new Date(now.getTime() + 60 * 60 * 1000);
    const third = (await request(app).post('/v1/signing-key/rotate').set(auth(ws.token))).body.signing_key as string;
    expect(new Set([first, second, third]).size).toBe(3);
    const keys = await keysAt(ws.id, now);
    expect(keys).toEqual({ current: signingKeyBytes(third), previous: signingKeyBytes(second) });
    expect((await stored(ws.id)).signingKeyRotatedAt?.toISOString()).toBe(now.toISOString());
  });

  it('keeps both keys when two rotations race: neither handed-out key is lost', async () => {
    const ws = await ctx.workspace();
    // Both rotations read the workspace before either writes: the interleaving that would lose a key.
    let release: () => void;
    const bothRead = new Promise<void>((resolve) => (release = resolve));
    let reads = 0;
    const db = {
      workspace: {
        findUnique: async (args: Parameters<Db['workspace']['findUnique']>[0]) => {
          const row = await ctx.runtime.db.workspace.findUnique(args);
          reads += 1;
          if (reads === 2) release();
          if (reads <= 2) await bothRead;
          return row;
        },
        updateMany: (args: Parameters<Db['workspace']['updateMany']>[0]) => ctx.runtime.db.workspace.updateMany(args),
      },
    } as unknown as Db;
    const deps = { db, config: ctx.config, clock };
    const [a, b] = await Promise.all([rotateSigningKey(deps, ws.id), rotateSigningKey(deps, ws.id)]);
    expect(reads).toBe(3);
    const keys = await keysAt(ws.id, now);
    expect([keys.current, keys.previous]).toEqual(expect.arrayContaining([signingKeyBytes(a.signing_key), signingKeyBytes(b.signing_key)]));
  });

  it('reads a bare whsec_ key stored before encryption, and stores both keys encrypted on rotation', async () => {
    const ws = await ctx.workspace();
    const legacy = 'whsec_' + Buffer.alloc(32, 9).toString('base64');
    await ctx.runtime.db.workspace.update({ where: { id: ws.id }, data: { signingKey: legacy } });
    expect((await request(app).get('/v1/signing-key').set(auth(ws.token))).body.signing_key).toBe(legacy);
    expect(await keysAt(ws.id, now)).toEqual({ current: Buffer.alloc(32, 9) });

    const fresh = (await request(app).post('/v1/signing-key/rotate').set(auth(ws.token))).body.signing_key as string;
    const row = await stored(ws.id);
    expect(row.signingKey).toMatch(ENCRYPTED);
    expect(row.previousSigningKey).toMatch(ENCRYPTED);
    expect(JSON.stringify(row)).not.toContain(legacy.slice('whsec_'.length));
    expect(await keysAt(ws.id, now)).toEqual({ current: signingKeyBytes(fresh), previous: Buffer.alloc(32, 9) });
  });

  it('keeps workspaces apart: each reads and rotates only its own key', async () => {
    const a = await ctx.workspace('a');
    const b = await ctx.workspace('b');
    const keyA = (await request(app).get('/v1/signing-key').set(auth(a.token))).body.signing_key;
    const keyB = (await request(app).get('/v1/signing-key').set(auth(b.token))).body.signing_key;
    expect(keyA).not.toBe(keyB);
    await request(app).post('/v1/signing-key/rotate').set(auth(a.token)).expect(200);
    expect((await request(app).get('/v1/signing-key').set(auth(b.token))).body.signing_key).toBe(keyB);
    expect((await stored(b.id)).previousSigningKey).toBeNull();
    expect(await keysAt(b.id, now)).toEqual({ current: signingKeyBytes(keyB) });
  });
});

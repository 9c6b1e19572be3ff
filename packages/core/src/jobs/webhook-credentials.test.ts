import { createHmac, randomBytes } from 'node:crypto';
import { legacyWebhookSecretHash } from '../../test/legacy-values.js';
import { needsRehash, revealWebhookToken, webhookColumns, webhookSecretHash, webhookSecretMatches } from './webhook-credentials.js';

const key = randomBytes(32);
const job = { id: 'job_1', workspaceId: 'wsp_1' };

it('matches the secret only exactly, under the same key', () => {
  const stored = webhookSecretHash(key, 'shared');
  expect(webhookSecretMatches(key, stored, 'shared')).toBe(true);
  for (const given of ['Shared', 'share', 'shared ', '', undefined]) expect(webhookSecretMatches(key, stored, given)).toBe(false);
  expect(webhookSecretMatches(randomBytes(32), stored, 'shared')).toBe(false);
});

it('hashes under a key derived for it (v2), and still checks a first-version hash made under the encryption key itself', () => {
  const stored = webhookSecretHash(key, 'shared');
  expect(stored).toMatch(/^v2:[0-9a-f]{64}$/);
  expect(stored.slice(3)).not.toBe(createHmac('sha256', key).update('webhook-secret:shared').digest('hex'));
  expect(needsRehash(stored)).toBe(false);
  const legacy = legacyWebhookSecretHash(key, 'shared');
  expect(needsRehash(legacy)).toBe(true);
  expect(webhookSecretMatches(key, legacy, 'shared')).toBe(true);
  expect(webhookSecretMatches(key, legacy, 'other')).toBe(false);
});

it('gives a new webhook_trigger job a token stored encrypted and hashed, keeps it on later changes, and drops it for other kinds', () => {
  const created = webhookColumns(key, job, { kind: 'webhook_trigger', webhook_secret: 's' }, null, true);
  const token = revealWebhookToken(key, { ...job, ...created });
  expect(token).toMatch(/^trg_[A-Za-z0-9_-]{43}$/);
  expect(created.webhookToken).not.toContain(token);
  expect(webhookSecretMatches(key, created.webhookSecretHash!, 's')).toBe(true);
  expect(webhookColumns(key, job, { kind: 'webhook_trigger' }, created, false)).toEqual(created);
  expect(webhookColumns(key, job, { kind: 'webhook_trigger' }, created, true)).toEqual({ ...created, webhookSecretHash: null });
  expect(webhookColumns(key, job, { kind: 'workflow' }, created, false)).toEqual({ webhookToken: null, webhookTokenHash: null, webhookSecretHash: null });
  expect(revealWebhookToken(randomBytes(32), { ...job, ...created })).toBeNull();
  // Copied into another job's row, the token does not open there.
  expect(revealWebhookToken(key, { id: 'job_2', workspaceId: 'wsp_1', webhookToken: created.webhookToken })).toBeNull();
});

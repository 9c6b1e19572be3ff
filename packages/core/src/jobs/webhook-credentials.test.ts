import { randomBytes } from 'node:crypto';
import { revealWebhookToken, webhookColumns, webhookSecretHash, webhookSecretMatches } from './webhook-credentials.js';

const key = randomBytes(32);

it('matches the secret only exactly, under the same key', () => {
  const stored = webhookSecretHash(key, 'shared');
  expect(webhookSecretMatches(key, stored, 'shared')).toBe(true);
  for (const given of ['Shared', 'share', 'shared ', '', undefined]) expect(webhookSecretMatches(key, stored, given)).toBe(false);
  expect(webhookSecretMatches(randomBytes(32), stored, 'shared')).toBe(false);
});

it('gives a new webhook_trigger job a token stored encrypted and hashed, keeps it on later changes, and drops it for other kinds', () => {
  const created = webhookColumns(key, { kind: 'webhook_trigger', webhook_secret: 's' }, null, true);
  const token = revealWebhookToken(key, created);
  expect(token).toMatch(/^trg_[A-Za-z0-9_-]{43}$/);
  expect(created.webhookToken).not.toContain(token);
  expect(created.webhookSecretHash).toBe(webhookSecretHash(key, 's'));
  expect(webhookColumns(key, { kind: 'webhook_trigger' }, created, false)).toEqual(created);
  expect(webhookColumns(key, { kind: 'webhook_trigger' }, created, true)).toEqual({ ...created, webhookSecretHash: null });
  expect(webhookColumns(key, { kind: 'workflow' }, created, false)).toEqual({ webhookToken: null, webhookTokenHash: null, webhookSecretHash: null });
  expect(revealWebhookToken(randomBytes(32), created)).toBeNull();
});

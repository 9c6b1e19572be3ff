import { executionEvent } from './execution-event.js';
import { sendMessage, SEND_TIMEOUT_MS } from './send-message.js';
import type { HttpClient } from '../http/http-client.js';
import { newToken } from '../ids/ids.js';
import type { Deps } from '../deps/deps.js';
import { DecryptionError } from '../secrets/crypto.js';
import type { ChannelTestResult, ChannelType } from '@cronsvc/contracts';
import { CHANNEL_ADAPTERS } from './adapters/index.js';
import { resolveChannelConfig } from './channel-credentials.js';
import { findChannel } from './channel-store.js';
import type { Mailer } from './mailer.js';
import type { NotificationMessage } from './notification-message.js';

/** A success notification about a job and execution that do not exist, clearly named as a test. */
export function syntheticMessage(publicBaseUrl: string, now: Date): NotificationMessage {
  const at = now.toISOString();
  return {
    event: 'on_success',
    payload: executionEvent({
      status: 'succeeded',
      job: { id: 'job_test', name: 'Test notification' },
      executionId: 'exe_test',
      statusCode: 200,
      bodyPreview: 'ok',
      errorClass: null,
      output: null,
      at: now,
    }),
    context: {
      scheduled_for: at,
      started_at: at,
      finished_at: at,
      duration_ms: 42,
      attempts: 1,
      error_message: null,
      execution_url: `${publicBaseUrl}/v1/executions/exe_test`,
    },
  };
}

const failed = (message: string, httpStatus: number | null, permanent: boolean): ChannelTestResult => ({
  ok: false,
  error: { code: 'notification_test_failed', message },
  // The receiver's status (an email's is the SMTP server's reply code); 0 when no answer came.
  http_status: httpStatus ?? 0,
  permanent,
});

/**
 * The channel test: the whole pipeline (secret resolution, rendering, sending) with a synthetic
 * success event, one attempt with the delivery timeout, no delivery recorded.
 */
export async function testChannel(deps: Deps & { http: HttpClient; mailer: Mailer | null }, workspaceId: string, id: string): Promise<ChannelTestResult> {
  const channel = await findChannel(deps.db, workspaceId, id);
  const type = channel.type as ChannelType;
  let resolved;
  try {
    resolved = await resolveChannelConfig(deps, channel, channel.config as Record<string, unknown>, channel.credentials);
  } catch (error) {
    if (error instanceof DecryptionError) return failed(`a credential cannot be decrypted: ${error.message}`, null, true);
    throw error;
  }
  if ('missing' in resolved) return failed(`secret ${resolved.missing.map((n) => `"${n}"`).join(', ')} does not exist in this workspace`, null, true);
  const now = deps.clock.now();
  const { result, classification } = await sendMessage(
    CHANNEL_ADAPTERS[type],
    syntheticMessage(deps.config.publicBaseUrl, now),
    resolved.config,
    { http: deps.http, mailer: deps.mailer, workspaceId, messageId: `test_${newToken().slice(0, 22)}`, timeoutMs: SEND_TIMEOUT_MS, chatCApiBase: deps.config.chatCApiBase, now },
    resolved.secretValues,
  );
  if (classification === 'sent') return { ok: true, channel_id: channel.id, provider: type };
  return failed(result.error ?? 'not delivered', result.statusCode, classification === 'permanent');
}

import { auditEndpoints, tokensEndpoints } from './endpoints/access.js';
import { dlqEndpoints } from './endpoints/dlq.js';
import { executionsEndpoints } from './endpoints/executions.js';
import { hostLimitsEndpoints } from './endpoints/hosts.js';
import { jobsEndpoints, tagsEndpoints } from './endpoints/jobs.js';
import { monitorsEndpoints } from './endpoints/monitors.js';
import { channelsEndpoints, deliveriesEndpoints, rulesEndpoints } from './endpoints/notifications.js';
import { secretsEndpoints, signingKeyEndpoints } from './endpoints/secrets.js';
import { createSend, type HttpOptions } from './http.js';

/** One method per /v1 endpoint the CLI uses, grouped as docs/API.md groups them. */
export function createClient(options: HttpOptions) {
  const send = createSend(options);
  return {
    jobs: jobsEndpoints(send),
    tags: tagsEndpoints(send),
    executions: executionsEndpoints(send),
    dlq: dlqEndpoints(send),
    secrets: secretsEndpoints(send),
    signingKey: signingKeyEndpoints(send),
    channels: channelsEndpoints(send),
    rules: rulesEndpoints(send),
    deliveries: deliveriesEndpoints(send),
    monitors: monitorsEndpoints(send),
    tokens: tokensEndpoints(send),
    audit: auditEndpoints(send),
    hostLimits: hostLimitsEndpoints(send),
  };
}

export type CronsvcClient = ReturnType<typeof createClient>;

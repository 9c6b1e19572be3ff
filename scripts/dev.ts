// `npm run dev`: `npm start` set up for trying the service on this machine. The workspace
// `default` takes the API token `dev-token` (BOOTSTRAP_API_TOKEN), jobs may call local servers
// (ALLOW_PRIVATE_TARGETS), and the API listens on this machine only (HOST=127.0.0.1), since that
// token is known to all; each can still be set otherwise in the environment. Once
// the API answers that token, one line gives a curl to paste: a job that calls the service's
// own /healthz once.
import { createLogger, loadConfig } from '@cronsvc/core';
import { localApiUrl, untilAnswering } from '@cronsvc/core/start-up';

const DEV_TOKEN = 'dev-token';
// The first start may initialise the embedded PostgreSQL and migrate it.
const READY_WAIT_MS = 10 * 60_000;

if (process.env.NODE_ENV === 'production') {
  process.stderr.write('npm run dev is for development: it opens a workspace with a well-known token and lets jobs call private addresses. Use npm start.\n');
  process.exit(78);
}
process.env.BOOTSTRAP_API_TOKEN ||= DEV_TOKEN;
process.env.ALLOW_PRIVATE_TARGETS ||= 'true';
process.env.HOST ||= '127.0.0.1';

/** Says how to try the service once its API takes the token; a configuration error is left to the start itself. */
async function announceWhenReady(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch {
    return;
  }
  const token = process.env.BOOTSTRAP_API_TOKEN!;
  const deadline = Date.now() + READY_WAIT_MS;
  if (!(await untilAnswering(`${localApiUrl(config)}/v1/jobs?limit=1`, () => Date.now() < deadline, { Authorization: `Bearer ${token}` }))) return;
  const base = config.publicBaseUrl;
  const job = JSON.stringify({ name: 'hello', kind: 'one_time', request: { url: `${base}/healthz` } });
  const logger = createLogger({ level: 'info', production: false, service: 'dev' });
  logger.info(`workspace default, API token ${token}, private targets ${config.allowPrivateTargets ? 'allowed' : 'refused'}; try:`);
  // On a line of its own, to be pasted whole.
  process.stdout.write(`\n  curl -s -X POST ${base}/v1/jobs -H 'Authorization: Bearer ${token}' -H 'Content-Type: application/json' -d '${job}'\n\n`);
}

void announceWhenReady();
await import('./start.js');

import { aOneTimeJob, type TargetServer } from '@cronsvc/core/testing';

// Clients that keep creating jobs through the API while a fault happens, and what each request
// was answered: a fault test counts the calls of what was accepted.

// An answer slower than this counts as a hang.
export const ANSWER_TIMEOUT_MS = 15_000;

export interface Answer {
  at: number;
  /** 0 when no answer came (the connection failed, or the answer timed out). */
  status: number;
  code?: string;
  /** The target path of the job the request created (or would have). */
  path: string;
}

/** One-time jobs created through the API, two at a time, until stop() is called; what each request was answered. */
export function keepCreating(api: string, token: string, target: TargetServer, tag: string): { answers: Answer[]; stop(): Promise<void> } {
  const answers: Answer[] = [];
  let stopped = false;
  let n = 0;
  const client = async () => {
    while (!stopped) {
      const path = `/${tag}-live-${n++}`;
      try {
        const res = await fetch(`${api}/v1/jobs`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(aOneTimeJob({ name: path.slice(1), request: { url: `${target.url}${path}` } })),
          signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
        });
        const body = (await res.json().catch(() => ({}))) as { error?: { code?: string } };
        answers.push({ at: Date.now(), status: res.status, code: body.error?.code, path });
      } catch (error) {
        answers.push({ at: Date.now(), status: 0, code: (error as Error).name, path });
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const clients = [client(), client()];
  return {
    answers,
    async stop() {
      stopped = true;
      await Promise.all(clients);
    },
  };
}

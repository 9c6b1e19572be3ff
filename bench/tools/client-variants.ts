// The clients bench/tools/http-clients.ts compares. Each makes the executor's call (GET with the
// execution id header, body read to its end) and keeps one keep-alive pool per workspace.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createHttpClient, type HttpResult } from '@cronsvc/core';
import { Agent } from 'undici';
import { repoRoot } from '../harness/processes.js';

export interface Call {
  url: string;
  workspaceId: string;
  id: string;
}

export interface ClientVariant {
  /** The status code, 0 for a transport error. */
  call(call: Call): Promise<number>;
  close(): Promise<void>;
}

/**
 * The commit whose packages/core/src/http holds the node:http client of ADR 005 (the last one on
 * main before the move to undici); `--legacy-rev` picks another.
 */
export const LEGACY_REV = 'd792379';

const SOCKETS = 256;

/** One pool per workspace, created on first use. */
function perWorkspace<T>(create: () => T): { get(workspaceId: string): T; all(): T[] } {
  const pools = new Map<string, T>();
  return {
    get(workspaceId) {
      let pool = pools.get(workspaceId);
      if (pool === undefined) pools.set(workspaceId, (pool = create()));
      return pool;
    },
    all: () => [...pools.values()],
  };
}

const statusOf = (result: HttpResult) => (result.kind === 'response' ? result.statusCode : 0);

/** The service's own client (packages/core/src/http), everything included. */
async function service(): Promise<ClientVariant> {
  const client = createHttpClient({ allowPrivateTargets: true });
  return {
    call: async ({ url, workspaceId, id }) =>
      statusOf(await client.send({ url, workspaceId, method: 'GET', headers: { 'X-Cron-Service-Execution-Id': id }, body: null, timeoutMs: 30_000 })),
    close: () => client.close(),
  };
}

type LegacyClient = { send(request: { url: string; method: string; headers: Record<string, string>; body: string | null; timeoutMs: number }): Promise<HttpResult> };

/**
 * The node:http client of ADR 005 exactly as it was at `rev`, everything included, with one client
 * (and so one pair of agents) per workspace. Its files are written from git under .local/, so
 * their imports (ipaddr.js) resolve from the repository.
 */
export async function legacy(rev: string): Promise<ClientVariant> {
  const dir = path.join(repoRoot, '.local', `bench-node-http-client-${rev}`);
  mkdirSync(dir, { recursive: true });
  for (const file of ['http-client.ts', 'request-options.ts', 'response-body.ts', 'target-guard.ts']) {
    writeFileSync(path.join(dir, file), execFileSync('git', ['show', `${rev}:packages/core/src/http/${file}`], { cwd: repoRoot }));
  }
  const { createHttpClient: create } = (await import(pathToFileURL(path.join(dir, 'http-client.ts')).href)) as { createHttpClient(options: { allowPrivateTargets: boolean }): LegacyClient };
  const clients = perWorkspace(() => create({ allowPrivateTargets: true }));
  return {
    call: async ({ url, workspaceId, id }) =>
      statusOf(await clients.get(workspaceId).send({ url, method: 'GET', headers: { 'X-Cron-Service-Execution-Id': id }, body: null, timeoutMs: 30_000 })),
    // Its agents are not reachable from outside; they go with the process.
    close: async () => undefined,
  };
}

/** Bare node:http: http.request on a keep-alive agent, the body collected. */
async function nodeHttp(): Promise<ClientVariant> {
  const agents = perWorkspace(() => new http.Agent({ keepAlive: true, maxSockets: SOCKETS, scheduling: 'lifo' }));
  return {
    call: ({ url, workspaceId, id }) =>
      new Promise((resolve) => {
        const req = http.request(url, { agent: agents.get(workspaceId), headers: { 'x-cron-service-execution-id': id } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            Buffer.concat(chunks);
            resolve(res.statusCode ?? 0);
          });
          res.on('error', () => resolve(0));
        });
        req.on('error', () => resolve(0));
        req.end();
      }),
    async close() {
      for (const agent of agents.all()) agent.destroy();
    },
  };
}

/** Bare undici: Agent.request, the body read as a stream. */
async function undiciRequest(): Promise<ClientVariant> {
  const agents = perWorkspace(() => new Agent({ connections: SOCKETS }));
  return {
    async call({ url, workspaceId, id }) {
      const parsed = new URL(url);
      try {
        const res = await agents.get(workspaceId).request({ origin: parsed.origin, path: parsed.pathname + parsed.search, method: 'GET', headers: { 'x-cron-service-execution-id': id } });
        const chunks: Buffer[] = [];
        for await (const chunk of res.body) chunks.push(chunk as Buffer);
        Buffer.concat(chunks);
        return res.statusCode;
      } catch {
        return 0;
      }
    },
    async close() {
      await Promise.all(agents.all().map((agent) => agent.destroy()));
    },
  };
}

/** Bare undici one level down: Agent.dispatch with a handler collecting the body, no stream (what the service's client uses). */
async function undiciDispatch(): Promise<ClientVariant> {
  const agents = perWorkspace(() => new Agent({ connections: SOCKETS }));
  return {
    call({ url, workspaceId, id }) {
      const parsed = new URL(url);
      return new Promise((resolve) => {
        const chunks: Buffer[] = [];
        let status = 0;
        agents.get(workspaceId).dispatch(
          { origin: parsed.origin, path: parsed.pathname + parsed.search, method: 'GET', headers: { 'x-cron-service-execution-id': id } },
          {
            onRequestStart: () => undefined,
            onResponseStart: (_c, statusCode) => void (status = statusCode),
            onResponseData: (_c, chunk) => void chunks.push(chunk),
            onResponseEnd: () => {
              Buffer.concat(chunks);
              resolve(status);
            },
            onResponseError: () => resolve(0),
          },
        );
      });
    },
    async close() {
      await Promise.all(agents.all().map((agent) => agent.destroy()));
    },
  };
}

export const CLIENT_VARIANTS: Record<string, { what: string; create(options: { legacyRev: string }): Promise<ClientVariant> }> = {
  service: { what: "the service's client (packages/core/src/http)", create: service },
  'adr005-node-http': { what: 'the node:http client of ADR 005, from git (--legacy-rev), one client per workspace', create: ({ legacyRev }) => legacy(legacyRev) },
  'node-http': { what: 'bare node:http, a keep-alive agent per workspace', create: nodeHttp },
  'undici-request': { what: 'bare undici Agent.request, an agent per workspace', create: undiciRequest },
  'undici-dispatch': { what: 'bare undici Agent.dispatch, an agent per workspace', create: undiciDispatch },
};


import type { RequestHandler, Response } from 'express';
import { KeyedGate } from './keyed-gate.js';

/**
 * Reads each workspace may have in progress at once in one API process (docs/API.md, "Lists"). A
 * read's cost is the workspace's to choose (a page of its largest objects, a 1 MiB job), and
 * reads in progress share one event loop and one pool: past this, a workspace's reads wait their
 * turn, and every other workspace's go ahead of them.
 */
export const READS_PER_WORKSPACE = 4;

/** One gate per API process, for the API and the console alike. */
export const workspaceReadGate = () => new KeyedGate(READS_PER_WORKSPACE);

/**
 * Holds a GET of the workspace `workspaceOf` names to its share of the gate until the answer is
 * sent or the client goes away. Writes are not held: they are small and batched together.
 */
export function workspaceReads(gate: KeyedGate, workspaceOf: (res: Response) => string): RequestHandler {
  return async (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const release = await gate.enter(workspaceOf(res));
    res.once('finish', release).once('close', release);
    // A client that gave up while it waited needs no answer.
    if (req.socket.destroyed) return release();
    next();
  };
}

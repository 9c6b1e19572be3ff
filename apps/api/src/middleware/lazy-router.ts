import type { RequestHandler, Router } from 'express';

/** A mounted router that is imported and built on its first request (lazyRouter). */
export type LazyRouter = RequestHandler & {
  /** The loaded router's layers (none before), where the route table reads its routes. */
  readonly stack: unknown[];
  /** Imports and builds the router now; the first request does it otherwise. */
  load(): Promise<Router>;
};

/**
 * A part of the API that most processes never serve (the web console, the queue dashboard), built
 * on its first request instead of at start-up, so that its modules and their packages take no
 * memory until someone opens it (docs/BENCHMARKS.md, "Idle memory"). `loaded` runs once the router
 * is in place and before the request that loaded it goes on: the route tables are read again
 * then, so that request's route is named and its permission checked like any other. A load that
 * fails answers that request with the error and is tried again by the next.
 */
export function lazyRouter(build: () => Promise<Router>, loaded: () => void): LazyRouter {
  let router: Router | undefined;
  let loading: Promise<Router> | undefined;
  const load = () =>
    (loading ??= build().then(
      (built) => {
        router = built;
        loaded();
        return built;
      },
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    ));
  const handler: RequestHandler = (req, res, next) => {
    if (router) return router(req, res, next);
    load().then((built) => built(req, res, next), next);
  };
  return Object.defineProperties(handler, {
    stack: { get: () => router?.stack ?? [] },
    load: { value: load },
  }) as LazyRouter;
}

import { createRequire } from 'node:module';
import path from 'node:path';
import { Router } from 'express';
import type { ApiDeps } from '../app.js';

// swagger-ui's own build, served from this service: the page loads nothing from another host.
const swaggerUi = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const ASSETS = { 'swagger-ui.css': 'text/css', 'swagger-ui-bundle.js': 'text/javascript', 'favicon-32x32.png': 'image/png' } as const;

// Scripts and styles from this service only; swagger-ui sets inline styles on its elements.
const PAGE_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>cron-service API reference</title>
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<main id="swagger-ui"></main>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

// No inline script, so the page's CSP can forbid them.
const INIT = `window.ui = SwaggerUIBundle({
  url: '/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  defaultModelsExpandDepth: 0,
});
`;

/**
 * GET /v1/openapi.json (public: the document holds no secret) and GET /docs, the API reference
 * rendered by swagger-ui from that document. The document and what builds it (the operations,
 * joi-to-json) are loaded on its first request: most API processes never serve it
 * (docs/BENCHMARKS.md, "Idle memory").
 */
export function docsRouter(deps: ApiDeps): Router {
  const router = Router();
  let document: Promise<string> | undefined;
  const built = async () => JSON.stringify((await import('../openapi/document.js')).buildDocument(deps.config.publicBaseUrl));
  router.get('/v1/openapi.json', (_req, res, next) => {
    document ??= built();
    document.then(
      (text) => void res.type('application/json').send(text),
      (error: unknown) => {
        // Built again by the next request.
        document = undefined;
        next(error);
      },
    );
  });
  router.get('/docs', (_req, res) => {
    res.set({ 'Content-Security-Policy': PAGE_CSP, 'X-Frame-Options': 'DENY' }).type('html').send(PAGE);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('text/javascript').send(INIT);
  });
  for (const [file, type] of Object.entries(ASSETS)) {
    router.get(`/docs/${file}`, (_req, res) => {
      res.set('Cache-Control', 'public, max-age=86400').type(type).sendFile(path.join(swaggerUi, file));
    });
  }
  return router;
}

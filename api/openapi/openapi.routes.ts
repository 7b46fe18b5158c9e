import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { Router } from '@koa/router';
import { getAbsoluteFSPath } from 'swagger-ui-dist';
import { AppError } from '../../shared/errors.js';
import type { AppState } from '../state.js';
import { buildOpenApiDocument } from './openapi.document.js';

// Swagger UI's own files, served from node_modules: the page needs no CDN.
const SWAGGER_UI_FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};
// Our start-up script, a file of its own because the page allows no inline script.
const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: false });
});
`;
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Hosted File Service API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/api/docs/swagger-ui.css">
<link rel="icon" type="image/png" href="/api/docs/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/api/docs/swagger-ui-bundle.js"></script>
<script src="/api/docs/init.js"></script>
</body>
</html>
`;
// Everything from this origin; images also as data: URIs (Swagger UI's icons are inline SVG).
const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
// The assets change only with the installed package: cache them for a day.
const ASSET_CACHE = 'public, max-age=86400';

/** `GET /api/openapi.json` (the document, cacheable) and `GET /api/docs` (Swagger UI reading it). */
export function openApiRoutes(baseUrl: string) {
  const document = JSON.stringify(buildOpenApiDocument(baseUrl));
  const etag = createHash('sha256').update(document).digest('base64url').slice(0, 27);
  const uiRoot = getAbsoluteFSPath();
  const router = new Router<AppState>();

  router.get('/openapi.json', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.etag = etag;
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.type = 'application/json';
    ctx.body = document;
  });

  router.get('/docs', (ctx) => {
    ctx.set('Content-Security-Policy', DOCS_CSP);
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGE;
  });

  router.get('/docs/:asset', (ctx) => {
    const asset = ctx.params.asset!;
    ctx.set('Cache-Control', ASSET_CACHE);
    if (asset === 'init.js') {
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.body = INIT_SCRIPT;
      return;
    }
    const type = Object.hasOwn(SWAGGER_UI_FILES, asset) ? SWAGGER_UI_FILES[asset] : undefined;
    if (!type) throw AppError.notFound('No such docs asset');
    ctx.type = type;
    ctx.body = createReadStream(path.join(uiRoot, asset));
  });

  return router;
}

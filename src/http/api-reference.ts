import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { CACHED_FOR_GOOD, hashedName } from './hashed-names.js';
import type { FastifyInstance } from 'fastify';
import escapeHtml from 'escape-html';

/**
 * /docs: the OpenAPI document rendered by Redoc (MIT), whose standalone bundle is served from
 * the npm package itself, beside a small start-up script and stylesheet of ours. Nothing is
 * fetched from another origin: the CSP allows scripts from this origin only.
 */
export const API_REFERENCE_PATH = '/docs';

const ASSETS_PREFIX = `${API_REFERENCE_PATH}/assets/`;

interface Asset {
  /** The hashed file name it is served under: `redoc.standalone.<12 hex digits>.js`. */
  file: string;
  type: 'text/css' | 'text/javascript';
  body: Buffer;
}

const require = createRequire(import.meta.url);

function asset(name: string, type: Asset['type'], body: Buffer): Asset {
  return { file: hashedName(name, body), type, body };
}

let loaded: { redoc: Asset; start: Asset; style: Asset } | undefined;

/**
 * The page's three files, read and hashed at the first visit (a process that never shows /docs
 * never reads the 1 MB bundle). Ours sit beside this module: in src/ under tsx and vitest,
 * copied into dist/ by the build.
 */
function assets() {
  loaded ??= {
    redoc: asset('redoc.standalone.js', 'text/javascript', readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'))),
    start: asset('api-reference.js', 'text/javascript', readFileSync(new URL('api-reference.client.js', import.meta.url))),
    style: asset('api-reference.css', 'text/css', readFileSync(new URL('api-reference.css', import.meta.url))),
  };
  return loaded;
}

/**
 * Redoc writes its styles into <style> elements, which a CSP without 'unsafe-inline' refuses
 * unless they carry the page's nonce: Redoc gives the nonce to every one it makes after
 * Redoc.init, which gets it from our start-up script. One is made earlier, as the bundle loads:
 * perfect-scrollbar's stylesheet (the sidebar's scrollbar), inserted empty and then filled, so
 * the CSP allows exactly those two texts by their hashes. A Redoc upgrade that changes that
 * text fails test/foundation/api-reference.test.ts, which expects no CSP refusal but the logo's.
 */
const BUNDLE_STYLE_HASHES = [
  "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='", // the empty element
  "'sha256-QMIg+bpjm3JdElJ388KYke01izlUW0UoNOeKjpMxdgc='", // perfect-scrollbar's rules
];

/**
 * Scripts from this origin only, never inline. Styles from this origin, with the nonce, or one of
 * the bundle's two texts above. The document is fetched from here (connect-src); Redoc's search
 * index runs in a worker it builds from a blob: URL of its own code. Redoc's footer shows a logo
 * from its CDN: img-src refuses it, and Redoc hides the image that failed.
 */
function csp(nonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}' ${BUNDLE_STYLE_HASHES.join(' ')}`,
    "img-src 'self' data:",
    "connect-src 'self'",
    'worker-src blob:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function page(specPath: string, nonce: string): string {
  const { redoc, start, style } = assets();
  const spec = escapeHtml(specPath);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tagsvc API reference</title>
<link rel="stylesheet" href="${ASSETS_PREFIX}${style.file}">
</head>
<body>
<noscript><p>The API reference needs JavaScript. The OpenAPI document it shows is at <a href="${spec}">${spec}</a>.</p></noscript>
<main id="api-reference" data-spec-url="${spec}"></main>
<script src="${ASSETS_PREFIX}${redoc.file}"></script>
<script src="${ASSETS_PREFIX}${start.file}" nonce="${nonce}"></script>
</body>
</html>
`;
}

/**
 * /docs shows the document served at `specPath`; /docs/ (Swagger UI's old address) redirects to
 * it. The page is sent with a fresh nonce each time, so it is never stored; its files have their
 * hash in their names and are cached for a year. The routes are left out of the document.
 */
export function registerApiReference(app: FastifyInstance, specPath: string): void {
  app.get(API_REFERENCE_PATH, { schema: { hide: true } }, (_request, reply) => {
    const nonce = randomBytes(16).toString('base64');
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', csp(nonce))
      .header('x-content-type-options', 'nosniff')
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'same-origin')
      .header('cache-control', 'no-store')
      .send(page(specPath, nonce));
  });
  app.get(`${API_REFERENCE_PATH}/`, { schema: { hide: true } }, (_request, reply) => reply.redirect(API_REFERENCE_PATH, 301));
  app.get<{ Params: { file: string } }>(`${ASSETS_PREFIX}:file`, { schema: { hide: true } }, (request, reply) => {
    const found = Object.values(assets()).find((item) => item.file === request.params.file);
    if (!found) return reply.callNotFound();
    return reply
      .type(`${found.type}; charset=utf-8`)
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', CACHED_FOR_GOOD)
      .send(found.body);
  });
}

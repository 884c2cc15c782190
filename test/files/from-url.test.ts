import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchUrl } from '../../src/features/files/fetch-url.js';
import { ApiError } from '../../src/errors.js';
import { createOutboundAgents } from '../../src/lib/outbound.js';
import { expectError, request } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { createTag, filesUnder, sha256 } from './helpers.js';
import { image, pdf } from './samples.js';

/** A local origin server for from-url: files, names, redirect chains, failures. */
async function startOrigin() {
  const png = await image('png', 10, 10);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://origin');
    const redirect = /^\/redirect\/(\d+)$/.exec(url.pathname);
    if (redirect) {
      const left = Number(redirect[1]);
      res.writeHead(302, { location: left > 1 ? `/redirect/${left - 1}` : '/files/report.pdf' });
      return res.end();
    }
    switch (url.pathname) {
      case '/files/report.pdf':
        res.writeHead(200, { 'content-type': 'application/pdf' });
        return res.end(pdf());
      case '/download':
        res.writeHead(200, {
          'content-type': 'application/octet-stream',
          'content-disposition': 'attachment; filename="Resume.pdf"; filename*=UTF-8\'\'R%C3%A9sum%C3%A9.pdf',
        });
        return res.end(pdf());
      case '/image':
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end(png);
      case '/script.php':
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end(png);
      case '/tool.exe':
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        return res.end(Buffer.from('MZ'));
      case '/lying.png':
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end(Buffer.from('not a png'));
      case '/huge.txt':
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(200 * 1024 * 1024) });
        return res.write('x'); // and never more
      case '/to-ftp':
        res.writeHead(301, { location: 'ftp://example.com/file.pdf' });
        return res.end();
      case '/to-localhost':
        res.writeHead(302, { location: `http://localhost:${(server.address() as AddressInfo).port}/files/report.pdf` });
        return res.end();
      case '/silent':
        return; // never answers
      default:
        res.writeHead(404);
        return res.end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, base, png };
}

describe('files from URL', () => {
  let origin: Awaited<ReturnType<typeof startOrigin>>;
  beforeAll(async () => {
    origin = await startOrigin();
  });
  afterAll(() => {
    origin.server.closeAllConnections();
    origin.server.close();
  });

  describe('with private networks allowed (tests, on-premise)', () => {
    const t = useApp({ env: { ALLOW_PRIVATE_NETWORKS: 'true' } });
    const alice = useAccount(t);
    let tag: { id: string };
    const fromUrl = (body: Record<string, unknown>) => request(t, 'POST', `/v1/tags/${tag.id}/files/from-url`, { key: alice.key, body });

    beforeAll(async () => {
      tag = await createTag(t, alice.key);
    });

    it('fetches a file, names it from the URL path and answers 201 with the file', async () => {
      const response = await fromUrl({ url: `${origin.base}/files/report.pdf`, description: 'fetched' });
      expect(response.status, response.text).toBe(201);
      expect(response.body.data).toMatchObject({
        name: 'report.pdf',
        original_name: 'report.pdf',
        mime_type: 'application/pdf',
        size: pdf().length,
        description: 'fetched',
        tag_id: tag.id,
      });
      const download = await request(t, 'GET', `/v1/files/${response.body.data.id}/download`, { key: alice.key });
      expect(sha256(download.raw)).toBe(sha256(pdf()));
      const events = await t.database.db
        .selectFrom('events')
        .select('type')
        .where('tag_id', '=', tag.id)
        .where('type', '=', 'file.uploaded')
        .execute();
      expect(events.length).toBe(1);
    });

    it('takes the name from Content-Disposition (RFC 5987) and lets the body override it', async () => {
      const named = await fromUrl({ url: `${origin.base}/download` });
      expect(named.body.data).toMatchObject({ name: 'Résumé.pdf', original_name: 'Résumé.pdf' });
      const renamed = await fromUrl({ url: `${origin.base}/download`, name: 'CV.pdf' });
      expect(renamed.body.data).toMatchObject({ name: 'CV.pdf', original_name: 'Résumé.pdf' });
    });

    it('adds an extension from the Content-Type when the path has none', async () => {
      const response = await fromUrl({ url: `${origin.base}/image` });
      expect(response.status).toBe(201);
      expect(response.body.data).toMatchObject({ name: 'image.png', mime_type: 'image/png', size: origin.png.length });
      const script = await fromUrl({ url: `${origin.base}/script.php?id=1` });
      expect(script.body.data).toMatchObject({ name: 'script.php.png', mime_type: 'image/png' });
    });

    it('follows up to 5 redirects and refuses the 6th', async () => {
      expect((await fromUrl({ url: `${origin.base}/redirect/5` })).status).toBe(201);
      expectError(await fromUrl({ url: `${origin.base}/redirect/6` }), 400, 'invalid_url');
    });

    it('applies the type and size rules', async () => {
      expectError(await fromUrl({ url: `${origin.base}/tool.exe` }), 415, 'unsupported_file_type');
      expectError(await fromUrl({ url: `${origin.base}/lying.png` }), 415, 'unsupported_file_type');
      expectError(await fromUrl({ url: `${origin.base}/huge.txt` }), 400, 'file_too_large');
      expect(filesUnder(join(t.config.dataDir, 'files', 'tmp'))).toEqual([]);
    });

    it.each([
      [{ url: 'ftp://example.com/a.pdf' }, 'invalid_url'],
      [{ url: 'not a url' }, 'invalid_url'],
      [{ url: 'file:///etc/passwd' }, 'invalid_url'],
      [{ url: 'http://user:pw@example.com/a.pdf' }, 'invalid_url'],
    ])('refuses %j', async (body, code) => {
      expectError(await fromUrl(body), 400, code);
    });

    it('refuses redirects to other schemes and failing answers', async () => {
      expectError(await fromUrl({ url: `${origin.base}/to-ftp` }), 400, 'invalid_url');
      expectError(await fromUrl({ url: `${origin.base}/missing.pdf` }), 400, 'invalid_url');
      expectError(await fromUrl({ url: 'http://127.0.0.1:1/a.pdf' }), 400, 'invalid_url');
    });

    it('validates the body', async () => {
      expectError(await fromUrl({}), 400, 'validation_error', 'url');
      expectError(await fromUrl({ url: `${origin.base}/image`, name: 'a/b.png' }), 400, 'validation_error', 'name');
      expectError(await fromUrl({ url: `${origin.base}/image`, extra: 1 }), 400, 'validation_error', 'extra');
    });
  });

  describe('by default (private networks refused)', () => {
    const t = useApp();
    const alice = useAccount(t);
    let tag: { id: string };
    beforeAll(async () => {
      tag = await createTag(t, alice.key);
    });

    it.each([
      'http://127.0.0.1:{port}/files/report.pdf',
      'http://localhost:{port}/files/report.pdf',
      'http://[::1]:{port}/a.pdf',
      'http://10.0.0.1/a.pdf',
      'http://169.254.169.254/latest/meta-data',
      'http://192.168.1.1/a.pdf',
    ])('refuses %s with 400 invalid_url', async (template) => {
      const url = template.replace('{port}', new URL(origin.base).port);
      const response = await request(t, 'POST', `/v1/tags/${tag.id}/files/from-url`, { key: alice.key, body: { url } });
      expectError(response, 400, 'invalid_url');
    });
  });

  describe('the fetcher', () => {
    const agents = createOutboundAgents({ allowPrivateNetworks: true });
    afterAll(() => {
      agents.http.destroy();
      agents.https.destroy();
    });
    const codeOf = async (promise: Promise<unknown>) => {
      try {
        await promise;
        return 'ok';
      } catch (error) {
        return error instanceof ApiError ? `${error.code}: ${error.message}` : String(error);
      }
    };

    it('checks the target of every redirect: a hop to a refused host fails', async () => {
      // Only 127.0.0.1 counts as public here; `localhost` stands for a private address.
      const refuseHost = async (url: URL) => (url.hostname === '127.0.0.1' ? undefined : 'a private address');
      const options = { agents, refuseHost, maxRedirects: 5, timeoutMs: 5000 };
      const direct = await fetchUrl(`${origin.base}/files/report.pdf`, options);
      direct.response.resume();
      direct.done();
      expect(await codeOf(fetchUrl(`${origin.base}/to-localhost`, options))).toMatch(/^invalid_url: .*private address/);
    });

    it('refuses private addresses at connect time too (a host that resolved publicly before)', async () => {
      const guarded = createOutboundAgents({ allowPrivateNetworks: false });
      try {
        const options = { agents: guarded, refuseHost: async () => undefined, maxRedirects: 5, timeoutMs: 5000 };
        expect(await codeOf(fetchUrl(`${origin.base}/files/report.pdf`, options))).toMatch(/^invalid_url: .*private/);
      } finally {
        guarded.http.destroy();
      }
    });

    it('gives up after its time limit', async () => {
      const options = { agents, refuseHost: async () => undefined, maxRedirects: 5, timeoutMs: 200 };
      expect(await codeOf(fetchUrl(`${origin.base}/silent`, options))).toMatch(/^invalid_url: .*in time|within/);
    });
  });
});

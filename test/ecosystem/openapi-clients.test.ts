import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/features/events/index.js';
import { PUBLIC_BASE_URL, request } from '../helpers/app.js';
import { describeOnce, useAccount, useApp } from '../helpers/harness.js';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/**
 * What a client author does with the served document: generate types with openapi-typescript,
 * call the API through openapi-fetch. The program below calls every operation with only the
 * arguments its author must give; it compiles only while parameters with defaults stay optional
 * and every operationId it names exists, and every call must get an answer that is not a 5xx.
 * An operation added to the API and not to the program fails the test: add its call here.
 */
const PROGRAM = `
import createClient from 'openapi-fetch';
import type { operations, paths } from './schema.js';

const client = createClient<paths>({
  baseUrl: process.env.BASE_URL!,
  headers: { authorization: \`Bearer \${process.env.API_KEY!}\` },
});
const statuses: Partial<Record<keyof operations, number>> = {};
async function call<R extends { response: Response }>(operation: keyof operations, sent: Promise<R>): Promise<R> {
  const result = await sent;
  statuses[operation] = result.response.status;
  return result;
}

await call('getMe', client.GET('/v1/me'));
await call('listTags', client.GET('/v1/tags'));
const created = await call('createTag', client.POST('/v1/tags', { body: { title: 'Lobby' } }));
const tag = created.data!.data;
await call('createTags', client.POST('/v1/tags/batch', { body: { tags: [{ title: 'Room A' }] } }));
const id = { path: { id: tag.id } };
await call('getTag', client.GET('/v1/tags/{id}', { params: id }));
await call('updateTag', client.PUT('/v1/tags/{id}', { params: id, body: {} }));
await call('getTagQr', client.GET('/v1/tags/{id}/qr', { params: id, parseAs: 'blob' }));

await call('listFolders', client.GET('/v1/folders'));
const folder = (await call('createFolder', client.POST('/v1/folders', { body: { name: 'Floor 2' } }))).data!.data;
const folderId = { path: { id: folder.id } };
await call('getFolder', client.GET('/v1/folders/{id}', { params: folderId }));
await call('updateFolder', client.PATCH('/v1/folders/{id}', { params: folderId, body: {} }));

const uploaded = await call(
  'uploadFile',
  client.POST('/v1/tags/{id}/files', {
    params: id,
    body: { file: 'notes' },
    bodySerializer: () => {
      const form = new FormData();
      form.append('file', new Blob(['Wi-Fi: guest']), 'notes.txt');
      return form;
    },
  }),
);
const file = { path: { file_id: uploaded.data!.data.id } };
await call('createFileFromUrl', client.POST('/v1/tags/{id}/files/from-url', { params: id, body: { url: 'http://127.0.0.1:9/notes.txt' } }));
await call('listTagFiles', client.GET('/v1/tags/{id}/files', { params: id }));
await call('getFile', client.GET('/v1/files/{file_id}', { params: file }));
await call('downloadFile', client.GET('/v1/files/{file_id}/download', { params: file, parseAs: 'text' }));
await call('getFileThumbnail', client.GET('/v1/files/{file_id}/thumbnail', { params: file, parseAs: 'blob' }));
await call('updateFile', client.PATCH('/v1/files/{file_id}', { params: file, body: {} }));

await call('listWebhooks', client.GET('/v1/webhooks'));
const hook = await call(
  'createWebhook',
  client.POST('/v1/webhooks', { body: { name: 'relay', url: 'https://127.0.0.1:9/hook', events: ['tag.created'] } }),
);
const webhookId = { path: { id: hook.data!.data.id } };
await call('getWebhook', client.GET('/v1/webhooks/{id}', { params: webhookId }));
await call('updateWebhook', client.PUT('/v1/webhooks/{id}', { params: webhookId, body: {} }));
const tested = await call('sendTestEvent', client.POST('/v1/webhooks/{id}/test', { params: webhookId, body: {} }));
const delivery = { path: { id: webhookId.path.id, delivery_id: tested.data!.data.delivery_id } };
await call('listDeliveries', client.GET('/v1/webhooks/{id}/deliveries', { params: webhookId }));
await call('getDelivery', client.GET('/v1/webhooks/{id}/deliveries/{delivery_id}', { params: delivery }));
await call('retryDelivery', client.POST('/v1/webhooks/{id}/deliveries/{delivery_id}/retry', { params: delivery }));

await call('getTagAnalytics', client.GET('/v1/tags/{id}/analytics', { params: id }));
await call('getTagLinkClicks', client.GET('/v1/tags/{id}/analytics/clicks', { params: id }));
await call('listTagViews', client.GET('/v1/tags/{id}/analytics/views', { params: id }));
await call('listTagLogs', client.GET('/v1/tags/{id}/analytics/logs', { params: id }));
await call('getTagRealtime', client.GET('/v1/tags/{id}/analytics/realtime', { params: id }));
await call('getAnalyticsOverview', client.GET('/v1/analytics/overview'));
await call('exportAnalytics', client.GET('/v1/analytics/export', { parseAs: 'text' }));
const share = await call(
  'createAnalyticsShare',
  client.POST('/v1/tags/{id}/analytics/shares', { params: id, body: { expires_at: '2099-01-01T00:00:00Z', password: 'secret' } }),
);
await call('listAnalyticsShares', client.GET('/v1/tags/{id}/analytics/shares', { params: id }));
await call(
  'deleteAnalyticsShare',
  client.DELETE('/v1/tags/{id}/analytics/shares/{share_id}', { params: { path: { id: tag.id, share_id: share.data!.data.id } } }),
);

await call('listAuditLog', client.GET('/v1/audit-log'));

await call('deleteFile', client.DELETE('/v1/files/{file_id}', { params: file }));
await call('deleteTag', client.DELETE('/v1/tags/{id}', { params: id }));
await call('deleteFolder', client.DELETE('/v1/folders/{id}', { params: folderId }));
await call('deleteWebhook', client.DELETE('/v1/webhooks/{id}', { params: webhookId }));

console.log(JSON.stringify(statuses));
`;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a parsed JSON document

type Operation = { operationId?: string; parameters?: { in: string; name: string; required?: boolean; schema?: { default?: unknown } }[] };

function operationsOf(document: { paths: Record<string, Record<string, Operation>> }): [string, Operation][] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]): [string, Operation] => [`${method.toUpperCase()} ${path}`, operation]),
  );
}

/** Type errors of `file`, as tsc prints them. */
function typeErrors(file: string): string[] {
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
  });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
}

describeOnce('the served OpenAPI document', () => {
  const t = useApp({ env: { ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_TIMEOUT: '1s' } });
  const owner = useAccount(t, 'enterprise');
  let document: Json & { paths: Record<string, Record<string, Operation>> };
  let dir: string;

  beforeAll(async () => {
    const response = await request(t, 'GET', '/v1/openapi.json');
    expect(response.status).toBe(200);
    document = response.body;
    dir = mkdtempSync(join(tmpdir(), 'tagsvc-client-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('names every operation and lists no parameter with a default as required', () => {
    const operations = operationsOf(document);
    expect(operations.length).toBeGreaterThan(30);
    const ids = operations.map(([, operation]) => operation.operationId);
    expect(operations.filter(([, operation]) => !operation.operationId).map(([name]) => name)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    const requiredDefaults = operations.flatMap(([name, operation]) =>
      (operation.parameters ?? []).filter((p) => p.required && p.schema?.default !== undefined).map((p) => `${name} ${p.name}`),
    );
    expect(requiredDefaults).toEqual([]);
  });

  it('offers the optional Idempotency-Key header on every POST, and on nothing else', () => {
    const operations = operationsOf(document);
    const withKey = operations
      .filter(([, operation]) => (operation.parameters ?? []).some((p) => p.in === 'header' && p.name === 'Idempotency-Key' && !p.required))
      .map(([name]) => name);
    const posts = operations.filter(([name]) => name.startsWith('POST ')).map(([name]) => name);
    expect(posts.length).toBeGreaterThan(5);
    expect(withKey).toEqual(posts);
  });

  it('names the shared shapes, refers to them, and lists the events, licence and server', () => {
    const schemas = document.components.schemas as Json;
    for (const name of [
      'Tag',
      'Block',
      'TextBlock',
      'Folder',
      'File',
      'Webhook',
      'Delivery',
      'TagReport',
      'ViewRecord',
      'Error',
      'Pagination',
    ]) {
      expect(schemas[name], name).toBeDefined();
    }
    expect(schemas.Block.discriminator.propertyName).toBe('type');
    expect(schemas.Block.oneOf).toHaveLength(7);
    const getTag = document.paths['/v1/tags/{id}']!.get as Json;
    expect(getTag.responses['200'].content['application/json'].schema.properties.data).toEqual({
      $ref: '#/components/schemas/TagWithPreview',
    });
    expect(getTag.responses['200'].content['application/json'].example.data.id).toMatch(/^tag_/);
    expect(getTag.responses['404'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    const createTag = document.paths['/v1/tags']!.post as Json;
    expect(createTag.requestBody.content['application/json'].example.title).toEqual(expect.any(String));
    for (const [name, operation] of operationsOf(document)) {
      const statuses = Object.keys((operation as Json).responses);
      for (const status of ['400', '401', '403', '404', '429']) expect(statuses, `${name} ${status}`).toContain(status);
    }
    expect(Object.keys(document.webhooks)).toEqual([...EVENT_TYPES]);
    const created = document.webhooks['tag.created'].post.requestBody.content['application/json'];
    expect(created.schema.properties.data.properties.tag).toEqual({ $ref: '#/components/schemas/Tag' });
    expect(document.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    expect(document.servers[0].url).toBe(PUBLIC_BASE_URL);
  });

  it('generates an openapi-fetch client that typechecks and calls every operation without a 5xx', async () => {
    writeFileSync(join(dir, 'schema.d.ts'), astToString(await openapiTS(document as never)));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(join(dir, 'calls.ts'), PROGRAM);
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));

    expect(typeErrors(join(dir, 'calls.ts'))).toEqual([]);

    const { stdout } = await run(join(ROOT, 'node_modules/.bin/tsx'), [join(dir, 'calls.ts')], {
      cwd: dir,
      env: { ...process.env, BASE_URL: t.baseUrl, API_KEY: owner.key },
    });
    const statuses = JSON.parse(stdout) as Record<string, number>;
    const expected = operationsOf(document).map(([, operation]) => operation.operationId!);
    expect(Object.keys(statuses).sort()).toEqual(expected.sort());
    expect(Object.entries(statuses).filter(([, status]) => status >= 500)).toEqual([]);
    // The calls reach the handlers: the main ones succeed with only the required arguments.
    for (const operation of ['listTags', 'createTag', 'getTag', 'listFolders', 'uploadFile', 'createWebhook', 'getTagQr']) {
      expect(statuses[operation], operation).toBeLessThan(300);
    }
  }, 120_000);

  it('passes Redocly lint with no error and no warning', async () => {
    const config = await createConfig(readFileSync(join(ROOT, 'redocly.yaml'), 'utf8'));
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
    expect(
      problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`),
    ).toEqual([]);
  });
});

import { createHash, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { paginateListObjectsV2 } from '@aws-sdk/client-s3';
import { request, type ApiResponse, type TestApp } from '../helpers/app.js';
import { testS3Client } from '../helpers/s3.js';

export type Part = { name: string; value: string } | { name: string; filename: string; content: Buffer; contentType?: string };

export function multipart(parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = `----tagsvc${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    if ('filename' in part) {
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\n` +
            `Content-Type: ${part.contentType ?? 'application/octet-stream'}\r\n\r\n`,
        ),
        part.content,
        Buffer.from('\r\n'),
      );
    } else {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export function uploadParts(t: TestApp, key: string, tagId: string, parts: Part[]): Promise<ApiResponse> {
  const { body, contentType } = multipart(parts);
  return request(t, 'POST', `/v1/tags/${tagId}/files`, { key, rawBody: body, headers: { 'content-type': contentType } });
}

export function upload(t: TestApp, key: string, tagId: string, filename: string, content: Buffer, fields: Record<string, string> = {}) {
  return uploadParts(t, key, tagId, [
    { name: 'file', filename, content },
    ...Object.entries(fields).map(([name, value]) => ({ name, value })),
  ]);
}

export async function createTag(t: TestApp, key: string, body: Record<string, unknown> = {}): Promise<{ id: string; short_id: string }> {
  const response = await request(t, 'POST', '/v1/tags', { key, body: { title: 'With files', ...body } });
  if (response.status !== 201) throw new Error(`tag not created: ${response.text}`);
  return response.body.data;
}

export const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** Every file below `dir` (recursive), relative names; [] when it does not exist. */
export function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name));
  } catch {
    return [];
  }
}

export interface StreamedUpload {
  status: number;
  body: { success: boolean; error?: { code: string; message: string } } | undefined;
  /** Bytes of the file the client had written when the response arrived. */
  sentBeforeResponse: number;
  /** True when the server closed the connection instead of reading the rest. */
  closedByServer: boolean;
}

/** A chunked multipart upload with the head of its file part sent; the caller sends the rest. */
function openFilePart(t: TestApp, key: string, tagId: string, filename: string, headers: Record<string, string> = {}) {
  const boundary = `----tagsvc${randomBytes(8).toString('hex')}`;
  const req = http.request(`${t.baseUrl}/v1/tags/${tagId}/files`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'transfer-encoding': 'chunked',
      ...headers,
    },
  });
  req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n\r\n`);
  return { req, boundary };
}

/**
 * Starts a chunked multipart upload of `filename` and writes `body` of it, leaving the request
 * open: the caller goes on writing, or goes away (`destroy`) in the middle of the body.
 */
export function startUpload(t: TestApp, key: string, tagId: string, filename: string, body: Buffer): http.ClientRequest {
  const { req } = openFilePart(t, key, tagId, filename);
  // ECONNRESET once the client goes away (or the server answers and hangs up).
  req.on('error', () => undefined);
  req.write(body);
  return req;
}

/**
 * Streams a multipart upload of `chunk` repeated without a Content-Length (chunked), as a
 * client would send a large file, until the server answers or `maxBytes` were sent. After the
 * answer the client keeps trying to send, to see whether the server still reads.
 */
export function streamUpload(
  t: TestApp,
  key: string,
  tagId: string,
  filename: string,
  chunk: Buffer,
  maxBytes: number,
  headers: Record<string, string> = {},
): Promise<StreamedUpload> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let sentBeforeResponse = -1;
    let closedByServer = false;
    let ended = false;
    let response: { status: number; text: string } | undefined;
    const { req, boundary } = openFilePart(t, key, tagId, filename, headers);
    const finish = () => {
      if (!response) return reject(new Error(`no response after ${sent} bytes`));
      resolve({
        status: response.status,
        body: response.text ? JSON.parse(response.text) : undefined,
        sentBeforeResponse,
        closedByServer,
      });
    };
    req.on('response', (res) => {
      sentBeforeResponse = sent;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (data: string) => (text += data));
      res.on('end', () => {
        response = { status: res.statusCode ?? 0, text };
      });
    });
    // EPIPE / ECONNRESET while sending: expected once the server has answered and hung up.
    req.on('error', () => undefined);
    req.on('close', () => {
      // The server hung up before the client had finished sending: it stopped reading.
      closedByServer = !ended;
      setTimeout(finish, 50);
    });
    const pump = () => {
      while (sent < maxBytes) {
        // After the answer, keep sending a little more: a server that still reads would take it.
        if (response && sent > sentBeforeResponse + 8 * chunk.length) break;
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      ended = true;
      req.end(`\r\n--${boundary}--\r\n`);
    };
    pump();
  });
}

/** The keys of every file the app's blob storage holds, whichever store it is. */
export async function storedKeys(t: TestApp): Promise<string[]> {
  const keys: string[] = [];
  for await (const blob of t.services.blobs.list()) keys.push(blob.key);
  return keys;
}

/** What the app keeps derived from file `id` (its renders): files on disk, objects in a bucket. */
export async function derivedOf(t: TestApp, id: string): Promise<string[]> {
  if (t.config.blobStore === 'disk') return filesUnder(join(t.config.dataDir, 'files', 'cache', id));
  const client = testS3Client();
  try {
    const names: string[] = [];
    for await (const page of paginateListObjectsV2({ client }, { Bucket: t.config.s3!.bucket, Prefix: `cache/${id}/` })) {
      names.push(...(page.Contents ?? []).map((object) => object.Key!));
    }
    return names;
  } finally {
    client.destroy();
  }
}

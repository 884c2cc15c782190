import { randomBytes } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';

export interface Transfer {
  status: number;
  /** Bytes of file content sent (upload) or received (download). */
  bytes: number;
  seconds: number;
  /** The answer's body (upload), empty for a download. */
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** One file part, read from disk as a stream or sent from memory. */
export interface FilePart {
  filename: string;
  contentType: string;
  path?: string;
  buffer?: Buffer;
}

/**
 * POST multipart/form-data with one `file` part, streamed from disk through node:http: the
 * client never holds the file either, so the bench process stays small beside the service it
 * measures. Timed from the first byte sent to the last byte of the answer.
 */
export function uploadFile(url: URL, key: string, part: FilePart): Promise<Transfer> {
  const boundary = `tagsvc-bench-${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${part.filename}"\r\nContent-Type: ${part.contentType}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const size = part.path ? statSync(part.path).size : part.buffer!.length;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + size + tail.length),
      },
    });
    request.on('error', reject);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          bytes: size,
          seconds: (performance.now() - started) / 1000,
          body: Buffer.concat(chunks).toString('utf8'),
          headers: response.headers,
        }),
      );
    });
    request.write(head);
    if (!part.path) {
      request.end(Buffer.concat([part.buffer!, tail]));
      return;
    }
    const file = createReadStream(part.path, { highWaterMark: 1 << 20 });
    file.on('error', (error) => {
      request.destroy(error);
      reject(error);
    });
    file.on('end', () => request.end(tail));
    file.pipe(request, { end: false });
  });
}

/**
 * GET that reads the body and throws it away as it comes: bytes counted (and lines, when
 * asked: a CSV export's rows), nothing kept.
 */
export function downloadDiscarding(
  url: URL,
  headers: Record<string, string>,
  options: { countLines?: boolean } = {},
): Promise<Transfer & { lines: number; firstByteSeconds: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.get(url, { headers }, (response) => {
      const firstByteSeconds = (performance.now() - started) / 1000;
      let bytes = 0;
      let newlines = 0;
      let last = 10;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (options.countLines) for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) newlines++;
        last = chunk[chunk.length - 1]!;
      });
      response.on('error', reject);
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          bytes,
          seconds: (performance.now() - started) / 1000,
          body: '',
          headers: response.headers,
          // A last line without its newline is a line all the same.
          lines: newlines + (bytes > 0 && last !== 10 ? 1 : 0),
          firstByteSeconds,
        }),
      );
    });
    request.on('error', reject);
  });
}

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import selfsigned from 'selfsigned';

/** The certificate the service is told to trust (OUTBOUND_CA_FILE); the key stays beside it. */
export const receiverCaFile = (workDir: string) => join(workDir, 'webhook-receiver.cert.pem');
const keyFile = (workDir: string) => join(workDir, 'webhook-receiver.key.pem');

/** A self-signed certificate for 127.0.0.1, made once per run (before the service starts). */
export async function writeReceiverCertificate(workDir: string): Promise<void> {
  if (existsSync(receiverCaFile(workDir))) return;
  const pems = await selfsigned.generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keySize: 2048,
    algorithm: 'sha256',
    // The service connects to the address, so the certificate must name it as an IP SAN.
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  writeFileSync(keyFile(workDir), pems.private);
  writeFileSync(receiverCaFile(workDir), pems.cert);
}

/** One delivery as the receiver saw it. */
export interface Arrival {
  /** The receiver path's last segment: which webhook it was sent to. */
  hook: string;
  eventId: string;
  /** Epoch ms (sub-millisecond) of the arrival of the whole body. */
  at: number;
  /** `created_at` of the event: for tag.created, when the tag was made. */
  createdAt: number;
  /** The attempt's `webhook-timestamp` (Unix seconds): tells a retry from a second send. */
  attemptAt: number;
}

/**
 * A fast HTTPS webhook receiver in the bench process: it answers 200 as soon as a body is in
 * and keeps only what the figures need, so it never becomes the bottleneck it measures.
 */
export class Receiver {
  private constructor(
    private readonly server: https.Server,
    readonly baseUrl: string,
    readonly arrivals: Arrival[],
  ) {}

  static async start(workDir: string): Promise<Receiver> {
    await writeReceiverCertificate(workDir);
    const arrivals: Arrival[] = [];
    const server = https.createServer(
      { key: readFileSync(keyFile(workDir)), cert: readFileSync(receiverCaFile(workDir)), keepAliveTimeout: 60_000 },
      (request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          // performance.timeOrigin + now(): epoch time with sub-millisecond resolution.
          const at = performance.timeOrigin + performance.now();
          try {
            const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; created_at: string };
            const hook = (request.url ?? '').split('/').pop() ?? '';
            arrivals.push({
              hook,
              eventId: body.id,
              at,
              createdAt: Date.parse(body.created_at),
              attemptAt: Number(request.headers['webhook-timestamp']),
            });
          } catch {
            // Not a delivery; answered all the same so the worker does not retry it.
          }
          response.writeHead(200, { 'content-type': 'text/plain' });
          response.end('ok');
        });
      },
    );
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    return new Receiver(server, `https://127.0.0.1:${port}`, arrivals);
  }

  /** The URL to register for webhook `hook`. */
  url(hook: string): string {
    return `${this.baseUrl}/hooks/${hook}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

import { writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { join } from 'node:path';
import selfsigned from 'selfsigned';
import { inject } from 'vitest';

/** A self-signed certificate for 127.0.0.1, made once per test process; its file is in the run's directory. */
let certificate: Promise<{ key: string; cert: string; caFile: string }> | undefined;

export function testCertificate() {
  certificate ??= selfsigned
    .generate([{ name: 'commonName', value: '127.0.0.1' }], {
      keySize: 2048,
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
    })
    .then((pems) => {
      const caFile = join(inject('runDir'), `receiver-${process.pid}.pem`);
      writeFileSync(caFile, pems.cert);
      return { key: pems.private, cert: pems.cert, caFile };
    });
  return certificate;
}

export interface ReceivedRequest {
  headers: Record<string, string>;
  body: string;
  json: { id: string; event: string; created_at: string; data: Record<string, unknown>; test?: boolean };
  at: number;
}

export type Behaviour = 'ok' | 'fail' | 'hang';

/** A real HTTPS (or, for local development, plain HTTP) webhook receiver on 127.0.0.1 that records what it gets. */
export class Receiver {
  readonly received: ReceivedRequest[] = [];
  behaviour: Behaviour = 'ok';
  private server!: http.Server;
  url = '';

  static async start(behaviour: Behaviour = 'ok', scheme: 'https' | 'http' = 'https'): Promise<Receiver> {
    const receiver = new Receiver();
    receiver.behaviour = behaviour;
    const handle: http.RequestListener = (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
        receiver.received.push({ headers, body, json: JSON.parse(body), at: Date.now() });
        if (receiver.behaviour === 'hang') return;
        res.writeHead(receiver.behaviour === 'ok' ? 200 : 500, { 'content-type': 'text/plain' });
        res.end(receiver.behaviour === 'ok' ? 'thanks' : 'receiver exploded');
      });
    };
    receiver.server = scheme === 'https' ? https.createServer(await testCertificate(), handle) : http.createServer(handle);
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    const address = receiver.server.address();
    receiver.url = `${scheme}://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hooks`;
    return receiver;
  }

  events(type?: string): ReceivedRequest[] {
    return type ? this.received.filter((r) => r.json.event === type) : this.received;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Polls `condition` until it holds (the worker runs asynchronously); fails after `timeoutMs`. */
export async function waitFor<T>(condition: () => T | Promise<T>, timeoutMs = 30_000, what = 'condition'): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

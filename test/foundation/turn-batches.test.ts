import { connect } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { handleInTurnBatches } from '../../src/perf/turn-batches.js';
import { createAccount, request } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';

const hook = (done: () => void) => handleInTurnBatches({} as FastifyRequest, {} as FastifyReply, done);

describe('requests handled in batches, one per turn of the event loop', () => {
  it('holds every request of a turn until its check phase, then handles them in arrival order', async () => {
    const handled: number[] = [];
    for (const n of [1, 2, 3]) hook(() => handled.push(n));
    expect(handled).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(handled).toEqual([1, 2, 3]);
    // The next turn's requests form a batch of their own.
    hook(() => handled.push(4));
    expect(handled).toEqual([1, 2, 3]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(handled).toEqual([1, 2, 3, 4]);
  });

  it('handles the rest of a batch when one of them throws, then lets the error surface', async () => {
    const handled: number[] = [];
    const surfaced = new Promise<unknown>((resolve) => process.once('uncaughtException', resolve));
    hook(() => handled.push(1));
    hook(() => {
      throw new Error('broken hook');
    });
    hook(() => handled.push(3));
    expect(((await surfaced) as Error).message).toBe('broken hook');
    expect(handled).toEqual([1, 3]);
  });

  describe('through the server', () => {
    const t = useApp();

    it('answers 50 concurrent API calls and pipelined requests each with its own answer, in order', async () => {
      const { key } = await createAccount(t);
      const answers = await Promise.all(Array.from({ length: 50 }, () => request(t, 'GET', '/v1/me', { key })));
      expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([200]));
      expect(new Set(answers.map((answer) => answer.headers.get('x-request-id'))).size).toBe(50);

      // Three requests in one write on one connection: all read in one turn, answered in order.
      const socket = connect(Number(new URL(t.baseUrl).port), '127.0.0.1');
      const raw = await new Promise<string>((resolve, reject) => {
        let text = '';
        socket.on('error', reject).on('data', (chunk: Buffer) => {
          text += chunk.toString();
          if ((text.match(/HTTP\/1\.1 \d{3}/g) ?? []).length === 3 && /\}$/.test(text)) resolve(text);
        });
        const requestFor = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n\r\n`;
        socket.write(requestFor('/v1/me') + requestFor('/v1/tags/tag_00000000000000000000000000') + requestFor('/healthz'));
      });
      socket.destroy();
      const statuses = [...raw.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((match) => Number(match[1]));
      expect(statuses).toEqual([200, 404, 200]);
    });
  });
});

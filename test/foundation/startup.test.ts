import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../helpers/app.js';
import { describeOnce } from '../helpers/harness.js';
import { spawnTagsvc } from '../webhooks/support.js';

const dataDir = mkdtempSync(join(tmpdir(), 'tagsvc-startup-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describeOnce('startup configuration', () => {
  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['LOG_LEVEL', 'loud'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['REDIS_URL', 'localhost:6379'],
    ['PUBLIC_BASE_URL', 'ftp://example.com'],
    ['SANDBOX_BASE_URL', 'not a url'],
    ['ALLOW_PRIVATE_NETWORKS', 'maybe'],
    ['WEBHOOK_RETRY_SCHEDULE', '5s,soon'],
    ['SECRET_KEY', 'short'],
    ['SANDBOX_RETENTION_DAYS', '0'],
    ['TRUST_PROXY', 'garbage'],
    ['WEBHOOK_TIMEOUT', '5s,9s'],
    ['WEBHOOK_TIMEOUT', '0s'],
    ['OUTBOUND_CA_FILE', '/nonexistent/ca.pem'],
    ['OUTBOUND_CA_FILE', '/etc/hostname'],
    ['RATE_LIMITS', 'sometimes'],
    ['RATE_LIMIT_MULTIPLIER', '0'],
    ['SIGNUP', 'sometimes'],
    ['METRICS_TOKEN', 'too-short'],
    ['SIGNUP_PLAN', 'platinum'],
  ])('stops with one line naming %s=%s', async (variable, value) => {
    const result = await runCli(['serve'], { DATA_DIR: dataDir, [variable]: value });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(variable);
  });
});

describeOnce('serve', () => {
  it('starts, answers, and exits cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, ['bin/tagsvc', 'serve'], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const listening = new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match) resolve(match[1]!);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
    });
    const url = await listening;
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toContain('shutting down');
  });
});

describeOnce('the start-up warning about links to localhost', () => {
  const WARNING =
    /"level":40,[^\n]*"msg":"HOST=[^"]* accepts connections from other machines, but PUBLIC_BASE_URL is http:\/\/localhost:0 [^"]*QR codes will point at localhost/g;

  /**
   * Starts `serve` with `env` on a free port and returns its log up to its shutdown, after it has
   * answered a request (the warning, if any, is written between listening and serving).
   */
  async function startupLog(env: Record<string, string>): Promise<string> {
    const server = spawnTagsvc(['serve', '--no-worker'], { DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info', ...env });
    try {
      const [, url] = await server.waitForOutput(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      // The log reaches this process on a pipe of its own, behind the answer: once the notice of
      // the shutdown asked for now has arrived, every line written before it has too.
      server.child.kill('SIGTERM');
      await server.waitForOutput(/"msg":"shutting down"/);
      return server.output();
    } finally {
      await server.stop();
    }
  }

  it('is logged once when HOST accepts outside connections and PUBLIC_BASE_URL is unset', async () => {
    expect((await startupLog({ HOST: '0.0.0.0' })).match(WARNING)).toHaveLength(1);
  });

  it('is not logged on loopback, nor when PUBLIC_BASE_URL is set', async () => {
    const [loopback, configured] = await Promise.all([
      startupLog({ HOST: '127.0.0.1' }),
      startupLog({ HOST: '0.0.0.0', PUBLIC_BASE_URL: 'https://tags.example.com' }),
    ]);
    for (const log of [loopback, configured]) {
      expect(log).toContain('Server listening at');
      expect(log).not.toContain('accepts connections from other machines');
    }
  });
});

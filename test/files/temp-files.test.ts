import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { discardTemp, pipeToNewFile } from '../../src/lib/blob-storage.js';

/**
 * The temp-file writing that uploads and zip inspection share, on the real disk: a write that
 * fails before its file is even open must not leave the file behind once it is discarded.
 */
describe('writing a temp file that fails at once', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tagsvc-temp-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves nothing behind after discardTemp, however often', async () => {
    for (let i = 0; i < 200; i++) {
      const path = join(dir, `refused-${i}`);
      const refuse = new Transform({ transform: (_chunk, _encoding, callback) => callback(new Error('refused')) });
      await expect(pipeToNewFile(Readable.from([Buffer.from('x')]), refuse, path)).rejects.toThrow('refused');
      await discardTemp(path);
    }
    // What is checked is that no file appears late, so there is no condition to wait for: give
    // an open still in flight ample time to land (it takes well under a millisecond).
    await delay(100);
    expect(readdirSync(dir)).toEqual([]);
  });
});

import { execFileSync } from 'node:child_process';
import { closeSync, fstatSync, ftruncateSync, mkdtempSync, openSync, rmdirSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A tmpfs of its own, to fill up: a real full disk, for the tests of what a full disk does. */
export interface SmallDisk {
  dir: string;
  /** Fills the disk with one file, then frees `leaveBytes` of it: writes then fail with ENOSPC. */
  fill(leaveBytes: number): void;
  /** Removes what fill() wrote. */
  free(): void;
  unmount(): void;
}

/** Mounts a tmpfs of `sizeMb` in a new temp directory; throws when it cannot (it needs root). */
export function mountSmallDisk(sizeMb: number): SmallDisk {
  const dir = mkdtempSync(join(tmpdir(), 'tagsvc-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    rmdirSync(dir);
    const { stderr, message } = error as { stderr?: Buffer; message: string };
    throw new Error((stderr?.toString() || message).trim().split('\n')[0]);
  }
  const filler = join(dir, 'filler');
  return {
    dir,
    fill(leaveBytes) {
      const fd = openSync(filler, 'w');
      try {
        // Large writes first, then page-sized ones for what is left.
        for (const size of [1024 * 1024, 4096]) {
          const chunk = Buffer.alloc(size, 1);
          try {
            for (;;) writeSync(fd, chunk);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
          }
        }
        ftruncateSync(fd, fstatSync(fd).size - leaveBytes);
      } finally {
        closeSync(fd);
      }
    },
    free: () => rmSync(filler, { force: true }),
    unmount() {
      execFileSync('umount', [dir]);
      rmdirSync(dir);
    },
  };
}

/** Why no small disk can be mounted here (said in the titles of the tests skipped for it), or undefined. */
export function whyNoSmallDisk(): string | undefined {
  try {
    mountSmallDisk(1).unmount();
    return undefined;
  } catch (error) {
    return `could not mount a tmpfs (needs root): ${(error as Error).message}`;
  }
}

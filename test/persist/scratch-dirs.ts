/** Database directories for a test file under one temporary root, removed after the file's tests. */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

export function scratchDirs(prefix: string): { fresh(): string; crashCopy(dir: string): string } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  let dirs = 0;
  const fresh = (): string => join(root, `d${++dirs}`);
  return {
    fresh,
    /** The directory as a crash would leave it: copied while the writer is open, so replay has the whole log. */
    crashCopy(dir: string): string {
      const to = fresh();
      cpSync(dir, to, { recursive: true });
      rmSync(join(to, 'lock'), { recursive: true, force: true });
      rmSync(join(to, 'lock.holder'), { force: true });
      return to;
    },
  };
}

/** readFileAhead: every byte once and in order for any chunk size, empty files, missing files, cancel. */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readFileAhead } from '../../src/storage/read-file-ahead.js';

const dir = mkdtempSync(join(tmpdir(), 'quire-ahead-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Every chunk copied as it arrives, and checked again when the next one arrives: its bytes must stay
 * valid while the caller parses the chunk after it (a line cut by a chunk end is read where it lies).
 */
async function readAll(file: string, chunk: number, depth?: number, afterChunk?: (i: number) => void): Promise<Buffer[]> {
  const out: Buffer[] = [];
  let prev: Buffer | null = null;
  for await (const c of readFileAhead(file, chunk, undefined, 'test', depth)) {
    if (prev !== null) expect(prev.equals(out[out.length - 1]!)).toBe(true);
    out.push(Buffer.from(c));
    prev = c;
    afterChunk?.(out.length - 1);
  }
  if (prev !== null) expect(prev.equals(out[out.length - 1]!)).toBe(true);
  return out;
}

describe('readFileAhead', () => {
  const data = Buffer.from(Array.from({ length: 10_000 }, (_, i) => (i * 7919) % 251));
  const f = join(dir, 'data.bin');
  writeFileSync(f, data);

  // The reader's buffers are reused two chunks on: a chunk overwritten too soon shows as wrong bytes.
  it('yields the file in chunks of the asked size, the last one shorter', async () => {
    for (const [size, depth] of [[1, 2], [7, 3], [100, 1], [2500, 2], [4096, 2], [10_000, 2], [65_536, 2]] as const) {
      const chunks = await readAll(f, size, depth);
      expect(Buffer.concat(chunks).equals(data)).toBe(true);
      expect(chunks.slice(0, -1).every((c) => c.length === size)).toBe(true);
      expect(chunks.length).toBe(Math.ceil(data.length / size));
    }
  });

  it('goes on after a short read when the file grows, without overwriting the chunk still in use', async () => {
    for (const depth of [1, 2, 3]) {
      const g = join(dir, `growing-${depth}.bin`);
      writeFileSync(g, data.subarray(0, 1000));
      // Chunk 3 is the short one (bytes 900 … 999); the rest of the data arrives after it.
      const chunks = await readAll(g, 300, depth, (i) => {
        if (i === 3) appendFileSync(g, data.subarray(1000, 5000));
      });
      expect(Buffer.concat(chunks).equals(data.subarray(0, 5000))).toBe(true);
      expect(chunks[3]!.length).toBe(100);
    }
  });

  it('reads an empty file as no chunks and a missing one as SQLSTATE 58P01', async () => {
    const e = join(dir, 'empty.bin');
    writeFileSync(e, '');
    expect(await readAll(e, 16)).toEqual([]);
    await expect(readAll(join(dir, 'nope.bin'), 16)).rejects.toMatchObject({ code: '58P01' });
  });

  it('stops with 57014 when the statement is cancelled', async () => {
    const ac = new AbortController();
    const it = readFileAhead(f, 100, ac.signal, 'test');
    expect((await it.next()).done).toBe(false);
    ac.abort();
    await expect(it.next()).rejects.toMatchObject({ code: '57014' });
  });
});

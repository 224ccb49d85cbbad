/**
 * Chunks of an uncompressed file with `depth` reads kept in flight while the caller parses, each into
 * a buffer of its own (the caller may keep a chunk, or part of one, as long as it likes). A stream
 * reads at most one chunk ahead and hands each over through an event and a promise; on a busy
 * machine the parser then waits on a thread-pool round trip per chunk (read_json spent a third of
 * its time idle that way). Errors and progress as readFileChunks.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { QuireError } from '../common/errors.js';
import { fileOpenError } from './csv.js';
import { reportProgress, type ProgressHandle } from './progress.js';

export async function* readFileAhead(file: string, chunkBytes: number, signal: AbortSignal | undefined, label: string, depth = 2): AsyncGenerator<Buffer> {
  let fh: fs.promises.FileHandle;
  try {
    fh = await fs.promises.open(file, 'r');
  } catch (e) {
    throw fileOpenError(file, e);
  }
  let progress: ProgressHandle | null = null;
  const inFlight: Promise<Buffer>[] = [];
  let at = 0;
  const issue = (): void => {
    // The buffer is the chunk handed out, so it is never reused.
    const buf = Buffer.allocUnsafe(chunkBytes);
    const p = fh.read(buf, 0, chunkBytes, at).then((r) => (r.bytesRead === chunkBytes ? buf : buf.subarray(0, r.bytesRead)));
    // Settled later (or dropped on close); never an unhandled rejection meanwhile.
    p.catch(() => {});
    inFlight.push(p);
    at += chunkBytes;
  };
  try {
    progress = reportProgress(`${label} ${path.basename(file)}`, (await fh.stat()).size, 'bytes');
    for (;;) {
      while (inFlight.length < depth) issue();
      if (signal?.aborted) throw new QuireError('57014', 'canceling statement due to user request');
      const chunk = await inFlight.shift()!;
      if (chunk.length === 0) return;
      progress.advance(chunk.length);
      if (chunk.length < chunkBytes) {
        // A short read (the end, or a file still being written): the reads behind it assumed a full
        // one, so they are dropped and reading goes on from here.
        for (const p of inFlight.splice(0)) await p.catch(() => null);
        at -= (depth - 1) * chunkBytes + (chunkBytes - chunk.length);
      }
      yield chunk;
    }
  } catch (e) {
    if (e instanceof QuireError) throw e;
    throw fileOpenError(file, e);
  } finally {
    progress?.done();
    for (const p of inFlight.splice(0)) await p.catch(() => null);
    await fh.close();
  }
}

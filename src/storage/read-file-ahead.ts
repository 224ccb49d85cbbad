/**
 * Chunks of an uncompressed file with `depth` reads kept in flight while the caller parses, into a
 * ring of depth + 1 buffers: a chunk's bytes stay valid while the caller parses it and the chunk after
 * it (so the line cut by a chunk's end can be read from where it lies), and are overwritten after that;
 * anything kept longer must be copied. A fresh buffer per chunk cost more than the read itself: each
 * is memory mapped afresh and its pages faulted in (read_json spent a tenth of its time there). A stream
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
  // Read k goes to ring[k % (depth + 1)]: when it is issued the caller has asked for chunk k - depth,
  // so it is done with chunk k - depth - 1, the last one in that buffer.
  const ring: Buffer[] = [];
  let issued = 0;
  const issue = (): void => {
    const slot = issued++ % (depth + 1);
    const buf = (ring[slot] ??= Buffer.allocUnsafe(chunkBytes));
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
        // Their buffers are free again: the next reads take them, keeping the ring's order.
        issued -= inFlight.length;
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

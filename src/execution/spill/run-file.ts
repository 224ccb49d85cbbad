/**
 * Spill run files: a sequence of encoded batch frames (codec.ts), written once, read sequentially any
 * number of times, deleted by the SpillManager that created them.
 *
 * Writes are gathered into WRITE_CHUNK-sized writes and reads are done in READ_CHUNK blocks, so an
 * external sort costs a few hundred system calls per 100 MB instead of one per batch. Every byte is
 * charged to the statement's TempSpace before it is written (53100 when max_temp_directory_size would be
 * exceeded) and given back when the file is deleted.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { QuireError } from '../../common/errors.js';
import type { DataType } from '../../common/types.js';
import type { Batch } from '../../common/column.js';
import { batchBytes, type TempSpace } from '../memory-pool.js';
import { decodeBatch, encodeBatch, FRAME_HEADER } from './codec.js';

export const WRITE_CHUNK = 1 << 20;
export const READ_CHUNK = 256 << 10;

/** A finished run on disk. */
export interface SpillRun {
  readonly path: string;
  readonly rows: number;
  readonly frames: number;
  /** Bytes on disk. */
  readonly bytes: number;
  /** Largest estimated in-memory size of one decoded frame: what a reader holds at a time. */
  readonly maxFrameMemory: number;
  readonly types: readonly DataType[];
}

function ioError(e: unknown, what: string): Error {
  if (e instanceof QuireError) return e;
  const code = (e as { code?: string }).code;
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new QuireError('53100', `could not write to temporary file: No space left on device`, { detail: `${what}` });
  }
  return new QuireError('58030', `could not ${what}: ${e instanceof Error ? e.message : String(e)}`);
}

export class RunWriter {
  private fh: FileHandle | null = null;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private rows = 0;
  private frames = 0;
  private bytes = 0;
  private maxFrameMemory = 0;
  private done = false;

  constructor(
    readonly path: string,
    readonly types: readonly DataType[],
    private readonly temp: TempSpace,
    private readonly compress: boolean,
    /** Called with the bytes of each write, for spill metrics. */
    private readonly onWrite: (bytes: number) => void,
  ) {}

  /** Appends one batch as one frame. The caller picks batch sizes (see ExternalSort's frame rows). */
  async append(b: Batch, memoryEstimate = batchBytes(b)): Promise<void> {
    if (b.length === 0) return;
    const frame = encodeBatch(b, this.compress);
    this.rows += b.length;
    this.frames++;
    if (memoryEstimate > this.maxFrameMemory) this.maxFrameMemory = memoryEstimate;
    this.pending.push(frame);
    this.pendingBytes += frame.length;
    if (this.pendingBytes >= WRITE_CHUNK) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.pendingBytes === 0) return;
    const n = this.pendingBytes;
    this.temp.add(n);
    this.bytes += n;
    // Counted before the write so that the manager releases the charge even if the write fails.
    this.onWrite(n);
    try {
      this.fh ??= await open(this.path, 'wx');
      const bufs = this.pending;
      this.pending = [];
      this.pendingBytes = 0;
      await this.fh.writev(bufs);
    } catch (e) {
      throw ioError(e, `write temporary file "${this.path}"`);
    }
  }

  async finish(): Promise<SpillRun> {
    if (this.done) throw new Error('RunWriter.finish called twice');
    await this.flush();
    this.done = true;
    try {
      if (this.fh === null) this.fh = await open(this.path, 'wx');
      await this.fh.close();
    } catch (e) {
      throw ioError(e, `close temporary file "${this.path}"`);
    }
    this.fh = null;
    return { path: this.path, rows: this.rows, frames: this.frames, bytes: this.bytes, maxFrameMemory: this.maxFrameMemory, types: this.types };
  }

  /** Closes the file without finishing it (error paths); the SpillManager deletes it. */
  async abandon(): Promise<void> {
    this.pending = [];
    const fh = this.fh;
    this.fh = null;
    this.done = true;
    await fh?.close().catch(() => undefined);
  }

  /** Bytes charged to the temp space so far (the manager releases them when the file goes). */
  get writtenBytes(): number {
    return this.bytes;
  }
}

/** Sequential reader of one run: next() returns the next batch or null at the end. */
export class RunReader {
  private fh: FileHandle | null = null;
  private buf: Buffer = Buffer.alloc(0);
  private start = 0;
  private end = 0;
  private filePos = 0;
  private eof = false;

  constructor(
    readonly run: SpillRun,
    /** Read block size: smaller under small memory limits (the merge reserves it per input run). */
    private readonly chunk = READ_CHUNK,
  ) {}

  /** Fills the buffer until `need` bytes are available from `start` (false at end of file). */
  private async ensure(need: number): Promise<boolean> {
    if (this.end - this.start >= need) return true;
    try {
      this.fh ??= await open(this.run.path, 'r');
      const have = this.end - this.start;
      const size = Math.max(this.chunk, need);
      // Move the unread tail to the front of a (possibly larger) buffer, then read behind it.
      const nb = size <= this.buf.length ? this.buf : Buffer.allocUnsafe(size);
      this.buf.copy(nb, 0, this.start, this.end);
      this.buf = nb;
      this.start = 0;
      this.end = have;
      while (this.end < need && !this.eof) {
        const { bytesRead } = await this.fh.read(this.buf, this.end, this.buf.length - this.end, this.filePos);
        if (bytesRead === 0) this.eof = true;
        this.filePos += bytesRead;
        this.end += bytesRead;
      }
    } catch (e) {
      throw ioError(e, `read temporary file "${this.run.path}"`);
    }
    return this.end - this.start >= need;
  }

  async next(): Promise<Batch | null> {
    if (!(await this.ensure(FRAME_HEADER))) {
      await this.close();
      return null;
    }
    const len = this.buf.readUInt32LE(this.start);
    const flags = this.buf[this.start + 4]!;
    if (!(await this.ensure(FRAME_HEADER + len))) throw new QuireError('XX001', `temporary file "${this.run.path}" is truncated`);
    const payload = this.buf.subarray(this.start + FRAME_HEADER, this.start + FRAME_HEADER + len);
    this.start += FRAME_HEADER + len;
    return decodeBatch(payload, flags, this.run.types);
  }

  async close(): Promise<void> {
    const fh = this.fh;
    this.fh = null;
    this.buf = Buffer.alloc(0);
    await fh?.close().catch(() => undefined);
  }
}

/** All batches of a run, in order. */
export async function* readRun(run: SpillRun): AsyncGenerator<Batch> {
  const r = new RunReader(run);
  try {
    for (;;) {
      const b = await r.next();
      if (b === null) return;
      yield b;
    }
  } finally {
    await r.close();
  }
}

/**
 * The write-ahead log of a database directory (file "wal"): every commit appends one record, and the
 * commit is acknowledged once an fsync covers it.
 *
 * File: a 20-byte header ("QWAL", u32 version 1, u64 base LSN, u32 CRC-32 of the first 16 bytes),
 * then records back to back. Record: "QWR1", u32 payload length, u32 CRC-32 of the payload, payload.
 * The payload starts with its LSN (u64); LSNs follow one another from base + 1, so a record that
 * went missing or came from another log is detected.
 *
 * A record that is incomplete or fails its checksum with no valid record after it is a torn tail
 * (the process died mid-write, before the commit was acknowledged) and is ignored; a writer cuts it
 * off before appending. A bad record followed by a valid one is damage, XX001 naming the file.
 *
 * Zeros after the last record (allocated ahead of time) are the end of the log, not damage.
 *
 * Group commit: records are written as commits happen, and durability is one fdatasync for all the
 * records written so far. Commits that arrive while an fdatasync is in flight wait for the next one,
 * which covers all of them; on a slow enough disk it starts once the writers the last one
 * acknowledged have written again, or after a timer tick (commit-gather.ts).
 *
 * A single writer (every commit of the last second from one session, and the disk's fdatasync fast)
 * syncs on the calling thread instead: handing the call to libuv's thread pool and back costs two
 * thread wake-ups, as much as the fdatasync itself on a busy machine, and with one writer there is
 * nothing to batch. The event loop stalls for that fdatasync; once a second session commits, or inline
 * fdatasyncs take longer than SLOW_SYNC_MS on average (or one takes ten times that), syncs go back to the
 * thread pool for a while (sync-pacer.ts; for a slow disk, until the thread pool's syncs say it is fast again). A single slow one is not enough: virtual disks answer most syncs in well
 * under a millisecond but one in fifty or so in 2–10 ms, and holding the thread pool for a second after
 * each of those made the writer pay the two wake-ups on nearly every commit.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { QuireError } from '../../common/errors.js';
import { CommitGather } from './commit-gather.js';
import { SyncPacer } from './sync-pacer.js';
import { setU32 } from './record-buffer.js';

export const WAL_FILE = 'wal';
const FILE_MAGIC = 'QWAL';
const RECORD_MAGIC = 0x31525751; // "QWR1" read as u32 LE
const HEADER = 20;
const RECORD_HEAD = 12;
/** What a record starts with before its body: the head (magic, length, CRC) and the LSN. */
export const RECORD_PREFIX = RECORD_HEAD + 8;
/**
 * The log grows by zero-filled steps of this size ahead of its records: overwriting allocated blocks
 * lets fdatasync skip the file-size metadata update that an append needs (several times faster per
 * commit). Zeros after the last record read as the end of the log.
 */
const PREALLOCATE = 1 << 20;
const ZEROS = Buffer.alloc(PREALLOCATE);
/** A commit from another session within this many ms of the last one means commits can be batched. */
const SHARED_WINDOW_MS = 100;
/** How long syncs stay on the thread pool after a sign of concurrency or of a slow disk. */
const ASYNC_HOLD_MS = 1000;
/**
 * Inline fdatasyncs slower than this on average (a moving average over about the last ten), or one ten
 * times slower, stall the event loop too long: the next ones go to the thread pool.
 */
const SLOW_SYNC_MS = 2;
let slowSyncMs = SLOW_SYNC_MS;

/** Test hook: the inline fdatasync time above which syncs go to the thread pool; null restores the default. */
export function setSlowSyncMs(ms: number | null): void {
  slowSyncMs = ms ?? SLOW_SYNC_MS;
}
/**
 * Group commit waits for the writers the last fdatasync acknowledged (commit-gather.ts) only on a disk
 * whose fdatasyncs average at least this: the wait (up to a timer tick, about a millisecond) is then
 * no longer than the fdatasync it lets them share.
 */
const GATHER_FROM_MS = 1;
let gatherFromMs = GATHER_FROM_MS;

/** Test hook: the average fdatasync time from which group commit waits for writers; null restores the default. */
export function setGatherFromMs(ms: number | null): void {
  gatherFromMs = ms ?? GATHER_FROM_MS;
}
/** Where a big record's small pieces are gathered between writes. */
const STAGING = Buffer.allocUnsafe(1 << 20);

function damaged(file: string, what: string): QuireError {
  return new QuireError('XX001', `write-ahead log "${path.basename(file)}" is corrupt: ${what}`, {
    hint: 'Restore the database directory from a backup.',
  });
}

export function walHeader(base: number): Buffer {
  const h = Buffer.alloc(HEADER);
  h.write(FILE_MAGIC, 0, 'latin1');
  h.writeUInt32LE(1, 4);
  h.writeBigUInt64LE(BigInt(base), 8);
  h.writeUInt32LE(crc32(h.subarray(0, 16)), 16);
  return h;
}

export interface WalContents {
  base: number;
  /** LSN of the last valid record (base when there is none). */
  last: number;
  /** Byte length of the valid prefix: header and complete records. */
  validEnd: number;
  size: number;
}

/** What a reader of the log is told, in file order. */
export interface WalVisitor {
  /** The header was read: records follow `base`. Called before any record. */
  header?(base: number): void;
  /** A valid record; `body` (the payload after the LSN) is only valid during the call. */
  record?(lsn: number, body: Buffer): void;
}

/**
 * Bytes read on demand through one reused window of `chunk` bytes, so reading a log costs memory
 * for the window (or one record larger than it), not for the file.
 */
class LogReader {
  private window: Buffer;
  private buf: Buffer;
  private start = 0;
  private len = 0;

  constructor(
    private readonly file: string,
    private readonly fd: number,
    readonly size: number,
    readonly chunk: number,
  ) {
    this.window = Buffer.allocUnsafe(Math.min(chunk, size));
    this.buf = this.window;
  }

  /** Bytes [pos, pos + n) of the file, or null past its end; valid until the next call. */
  view(pos: number, n: number): Buffer | null {
    if (pos + n > this.size) return null;
    if (pos >= this.start && pos + n <= this.start + this.len) return this.buf.subarray(pos - this.start, pos - this.start + n);
    // A record longer than the window is read whole, into its own buffer.
    const target = n > this.window.length ? Buffer.allocUnsafe(n) : this.window;
    const want = Math.min(target.length, this.size - pos);
    let done = 0;
    try {
      while (done < want) {
        const k = fs.readSync(this.fd, target, done, want - done, pos + done);
        if (k === 0) break;
        done += k;
      }
    } catch (e) {
      throw damaged(this.file, `cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    if (done < n) return null;
    this.buf = target;
    this.start = pos;
    this.len = done;
    return target.subarray(0, n);
  }
}

/** The record at `pos`, or null when it is incomplete or fails its checksum. */
function recordAt(r: LogReader, pos: number): { lsn: number; body: Buffer; end: number } | null {
  const head = r.view(pos, RECORD_HEAD);
  if (head === null || head.readUInt32LE(0) !== RECORD_MAGIC) return null;
  const len = head.readUInt32LE(4);
  const crc = head.readUInt32LE(8);
  if (len < 8) return null;
  const payload = r.view(pos + RECORD_HEAD, len);
  if (payload === null || crc32(payload) !== crc) return null;
  return { lsn: Number(payload.readBigUInt64LE(0)), body: payload.subarray(8), end: pos + RECORD_HEAD + len };
}

/** Whether a valid record starts anywhere at or after `from` (a bad record before it is then damage, not a torn tail). */
function validRecordFrom(r: LogReader, from: number): boolean {
  const magic = Buffer.from('QWR1', 'latin1');
  let p = from;
  while (p + RECORD_HEAD <= r.size) {
    const n = Math.min(r.chunk, r.size - p);
    const i = r.view(p, n)!.indexOf(magic);
    if (i < 0) {
      if (p + n >= r.size) return false;
      // The next window overlaps by three bytes: a magic split across two windows is still found.
      p += n - (magic.length - 1);
      continue;
    }
    if (recordAt(r, p + i) !== null) return true;
    p += i + 1;
  }
  return false;
}

/** Bytes per read while reading the log (tests make it small). */
let readChunk = 4 << 20;

/** Test hook: the read window's size in bytes (at least 64); null restores the default. */
export function setWalReadChunk(bytes: number | null): void {
  readChunk = bytes === null ? 4 << 20 : Math.max(64, bytes);
}

/**
 * Reads and checks the log, record by record, handing each valid one to `visit` as it goes; a missing
 * file is null. Damage (XX001) can be found after earlier records were visited: the caller discards
 * what it built from them.
 */
export function readWal(file: string, visit: WalVisitor = {}): WalContents | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw damaged(file, `cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    const size = fs.fstatSync(fd).size;
    const r = new LogReader(file, fd, size, readChunk);
    const h = r.view(0, HEADER);
    if (h === null || h.toString('latin1', 0, 4) !== FILE_MAGIC || crc32(h.subarray(0, 16)) !== h.readUInt32LE(16)) {
      // The header is written whole (temporary file, fsync, rename) before the log is used.
      throw damaged(file, 'bad header');
    }
    if (h.readUInt32LE(4) !== 1) throw damaged(file, `unsupported version ${h.readUInt32LE(4)}`);
    const base = Number(h.readBigUInt64LE(8));
    visit.header?.(base);
    let pos = HEADER;
    let expect = base + 1;
    while (pos < size) {
      const rec = recordAt(r, pos);
      if (rec === null) {
        // Torn tail, unless a valid record follows somewhere after it.
        if (validRecordFrom(r, pos + 1)) throw damaged(file, `record ${expect} at byte ${pos} is damaged and valid records follow it`);
        break;
      }
      if (rec.lsn !== expect) throw damaged(file, `record at byte ${pos} has LSN ${rec.lsn} where ${expect} was expected`);
      visit.record?.(rec.lsn, rec.body);
      expect++;
      pos = rec.end;
    }
    return { base, last: expect - 1, validEnd: pos, size };
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes a new, empty log whose next record is base + 1, atomically (temporary file, fsync, rename). */
export function createWal(dir: string, base: number): void {
  const tmp = path.join(dir, `.${WAL_FILE}.tmp-${process.pid}`);
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, walHeader(base));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, path.join(dir, WAL_FILE));
}

/** The log opened for writes that are durable on return (O_DSYNC where the platform has it). */
function openSyncFd(file: string): number {
  const dsync = fs.constants.O_DSYNC ?? fs.constants.O_SYNC;
  return dsync === undefined ? -1 : fs.openSync(file, fs.constants.O_RDWR | dsync);
}

function writeAll(fd: number, b: Uint8Array, at: number): void {
  let done = 0;
  while (done < b.length) done += fs.writeSync(fd, b, done, b.length - done, at + done);
}

/** The open log of a writer. */
export class WalWriter {
  private fd: number;
  /**
   * The same file opened with O_DSYNC: a single writer's small record is written through it, durable
   * when the write returns. One system call instead of a write and an fdatasync; on virtual machines,
   * where each call costs several microseconds, that is 5-8% of a commit.
   */
  private syncFd: number;
  /** Bytes of the log's header and records (the file may be longer: zeros allocated ahead). */
  size: number;
  private allocated: number;
  /** LSN of the last record written. */
  written: number;
  /** LSN up to which records are on disk. */
  durable: number;
  /** The next fdatasync through the thread pool, from when a waiter asks for it until it returns. */
  private syncing: Promise<void> | null = null;
  /** An fdatasync is running on the thread pool (it closes its file itself if the log moved on meanwhile). */
  private fdatasyncing = false;
  private failure: QuireError | null = null;
  /** fdatasync calls made, so group commit can be observed. */
  syncs = 0;
  /** Of those, the ones made on the calling thread (single-writer commits). */
  inlineSyncs = 0;
  /**
   * LSN of the last record too big for the zeros allocated ahead (a bulk load). An inline sync that
   * covers it writes megabytes and says nothing about what a commit's sync costs: judged like one, the
   * sync of a 100,000-row INSERT (3-20 ms on the test VM) sent the single-row commits after it to the
   * thread pool for a second.
   */
  private bigWritten = 0;
  /** The session that wrote the last record, and when. */
  private lastWriter: object | undefined = undefined;
  private lastAppendAt = -Infinity;
  /** Inline or through the thread pool (concurrent writers, or a slow disk). */
  private readonly pacer = new SyncPacer(() => slowSyncMs, ASYNC_HOLD_MS);
  /** When the thread pool's next fdatasync starts: once the writers it would acknowledge are back. */
  private readonly gather = new CommitGather(() => gatherFromMs, 1, 100);

  constructor(
    private readonly file: string,
    contents: WalContents,
  ) {
    this.fd = fs.openSync(file, 'r+');
    this.syncFd = openSyncFd(file);
    const last = contents.last;
    if (contents.validEnd < contents.size) {
      // Cut off a torn tail so new records follow valid ones (else it would read as damage later).
      fs.ftruncateSync(this.fd, contents.validEnd);
      fs.fsyncSync(this.fd);
    }
    this.size = contents.validEnd;
    this.allocated = contents.validEnd;
    this.written = last;
    this.durable = last;
  }

  private fail(e: unknown): QuireError {
    this.failure ??= new QuireError('58030', `could not write to write-ahead log "${this.file}": ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, {
      hint: 'Commits after the last acknowledged one may be lost; reopen the database directory.',
    });
    return this.failure;
  }

  /**
   * Writes one record; returns its LSN. Durable only after waitDurable. `pieces` are the record in
   * order, the first starting with RECORD_PREFIX bytes left for the head and LSN, which are filled in
   * here; `bodyBytes` counts what follows them. `writer` is the session committing: commits of
   * several sessions close together are group committed.
   */
  append(pieces: readonly Uint8Array[], bodyBytes: number, writer?: object): number {
    if (this.failure !== null) throw this.failure;
    const now = performance.now();
    if (writer !== this.lastWriter && now - this.lastAppendAt < SHARED_WINDOW_MS) this.pacer.hold(now);
    this.lastWriter = writer;
    this.lastAppendAt = now;
    const lsn = this.written + 1;
    const length = 8 + bodyBytes;
    const first = pieces[0]!;
    // Stored byte by byte, not through a Buffer view's writeUInt32LE: until the optimizing compiler
    // has a commit's path (its first few thousand commits), each of those calls runs its argument
    // checks as interpreted code, and five of them cost more than the rest of the head.
    setU32(first, 0, RECORD_MAGIC);
    setU32(first, 4, length);
    setU32(first, RECORD_HEAD, lsn % 0x100000000);
    setU32(first, RECORD_HEAD + 4, Math.floor(lsn / 0x100000000));
    // One pass over the payload (LSN and body), piece by piece.
    let crc = crc32(new Uint8Array(first.buffer, first.byteOffset + RECORD_HEAD, first.length - RECORD_HEAD));
    for (let i = 1; i < pieces.length; i++) crc = crc32(pieces[i]!, crc);
    setU32(first, 8, crc);
    try {
      const end = this.size + RECORD_HEAD + length;
      if (length < PREALLOCATE / 4) {
        // Small records go into zeros allocated ahead, as one write.
        let writeStart = now;
        if (end > this.allocated) {
          writeAll(this.fd, ZEROS, Math.max(this.allocated, this.size));
          // Made durable now, once per step: until the blocks and the file size are on disk, every
          // O_DSYNC write into them also commits that metadata, which costs as much as an append.
          fs.fdatasyncSync(this.fd);
          this.allocated = Math.max(this.allocated, this.size) + PREALLOCATE;
          // The write below is timed from after this step: paid once per PREALLOCATE bytes, and counted
          // with the write it came with, it sent a single writer to the thread pool for ASYNC_HOLD_MS at
          // every step.
          writeStart = performance.now();
        }
        // A single writer with nothing pending writes through: durable when the write returns.
        const through = this.syncFd >= 0 && this.durable === this.written && this.syncing === null && this.pacer.inlineAt(now);
        const fd = through ? this.syncFd : this.fd;
        if (pieces.length === 1) writeAll(fd, first, this.size);
        else {
          let p = 0;
          for (const piece of pieces) {
            STAGING.set(piece, p);
            p += piece.length;
          }
          writeAll(fd, STAGING.subarray(0, p), this.size);
        }
        if (through) {
          this.size += RECORD_HEAD + length;
          this.written = lsn;
          this.durable = lsn;
          this.syncs++;
          this.inlineSyncs++;
          this.timedInline(writeStart);
          return lsn;
        }
      } else {
        // A big one (a bulk load) extends the file piece by piece: the column buffers are written
        // where they are, never copied into one record-sized buffer.
        // Small pieces (batch and column headers) are gathered so they do not cost a write each.
        let at = this.size;
        let fill = 0;
        for (const piece of pieces) {
          if (fill + piece.length > STAGING.length) {
            writeAll(this.fd, STAGING.subarray(0, fill), at);
            at += fill;
            fill = 0;
          }
          if (piece.length >= STAGING.length / 4) {
            writeAll(this.fd, piece, at);
            at += piece.length;
          } else {
            STAGING.set(piece, fill);
            fill += piece.length;
          }
        }
        writeAll(this.fd, STAGING.subarray(0, fill), at);
        // Zeros for the small records after it, synced with it: the next commit after a bulk load
        // then does not pay for extending the file.
        writeAll(this.fd, ZEROS, end);
        this.allocated = end + PREALLOCATE;
        this.bigWritten = lsn;
      }
      this.allocated = Math.max(this.allocated, end);
    } catch (e) {
      throw this.fail(e);
    }
    this.size += RECORD_HEAD + length;
    this.written = lsn;
    this.gather.wrote(writer);
    return lsn;
  }

  /**
   * Null when every record up to `lsn` is on disk (after an inline fdatasync, for a single writer);
   * otherwise a promise that resolves once they are.
   */
  waitDurable(lsn: number): Promise<void> | null {
    if (this.durable >= lsn) return null;
    if (this.failure !== null) return Promise.reject(this.failure);
    if (this.syncing === null && this.pacer.inlineAt(performance.now())) {
      try {
        this.syncInline();
      } catch (e) {
        return Promise.reject(e);
      }
      if (this.durable >= lsn) return null;
    }
    return this.waitAsync(lsn);
  }

  private async waitAsync(lsn: number): Promise<void> {
    while (this.durable < lsn) {
      if (this.failure !== null) throw this.failure;
      this.syncing ??= this.sync();
      await this.syncing;
    }
  }

  private syncInline(): void {
    const target = this.written;
    const judged = this.bigWritten <= this.durable;
    const t0 = performance.now();
    this.syncs++;
    this.inlineSyncs++;
    try {
      fs.fdatasyncSync(this.fd);
    } catch (e) {
      throw this.fail(e);
    }
    if (target > this.durable) this.durable = target;
    if (judged) this.timedInline(t0);
  }

  /** Accounts an inline sync begun at t0: a slow disk sends the next ones to the thread pool. */
  private timedInline(t0: number): void {
    const t1 = performance.now();
    this.pacer.timed(t1 - t0, t1);
  }

  /** The next fdatasync, once the writers it would acknowledge are back (commit-gather.ts). */
  private sync(): Promise<void> {
    const gathering = this.gather.wait(performance.now());
    return gathering === null ? this.syncNow() : gathering.then(() => this.syncNow());
  }

  private syncNow(): Promise<void> {
    const target = this.written;
    const fd = this.fd;
    if (fd < 0 || this.durable >= target) {
      // Made durable meanwhile (a checkpoint, or close() syncing what was written), or closed without
      // that sync succeeding: the waiters fail rather than wait for a log that is gone. Cleared in a
      // later microtask: called from sync(), `syncing` is assigned after this returns.
      const closedEarly = this.durable < target ? this.fail(new Error('the log was closed')) : null;
      return Promise.resolve().then(() => {
        this.syncing = null;
        if (closedEarly !== null) throw closedEarly;
      });
    }
    this.syncs++;
    this.gather.started();
    this.fdatasyncing = true;
    // As in syncInline: a sync covering a bulk load's record says nothing about a commit's.
    const judged = this.bigWritten <= this.durable;
    const t0 = performance.now();
    return new Promise<void>((resolve, reject) => {
      fs.fdatasync(fd, (err) => {
        this.fdatasyncing = false;
        const t1 = performance.now();
        this.gather.finished(t1 - t0);
        if (judged) this.pacer.pooled(t1 - t0, t1);
        this.syncing = null;
        if (fd !== this.fd) {
          // The log was rotated meanwhile: the checkpoint made these records durable in table files.
          fs.close(fd, () => undefined);
          resolve();
          return;
        }
        if (err) {
          reject(this.fail(err));
          return;
        }
        if (target > this.durable) this.durable = target;
        resolve();
      });
    });
  }

  /** After a checkpoint covering every written record: switch to the new (empty) log file. */
  rotated(): void {
    const old = this.fd;
    this.fd = fs.openSync(this.file, 'r+');
    if (this.syncFd >= 0) fs.closeSync(this.syncFd);
    this.syncFd = openSyncFd(this.file);
    this.size = HEADER;
    this.allocated = HEADER;
    this.durable = this.written;
    // An fdatasync in flight on the old file closes it when it returns.
    if (!this.fdatasyncing) fs.closeSync(old);
  }

  /** Syncs what is not yet durable (a close whose checkpoint failed still keeps its commits), then closes. */
  close(): void {
    // A group commit waiting for writers finds the log closed and what was written synced below.
    this.gather.flush();
    const fd = this.fd;
    this.fd = -1;
    if (this.syncFd >= 0) fs.closeSync(this.syncFd);
    this.syncFd = -1;
    try {
      if (this.durable < this.written && this.failure === null) {
        fs.fdatasyncSync(fd);
        this.durable = this.written;
      }
    } finally {
      // An fdatasync in flight closes the file when it returns.
      if (!this.fdatasyncing) fs.closeSync(fd);
    }
  }
}

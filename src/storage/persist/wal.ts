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
 * which covers all of them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { QuireError } from '../../common/errors.js';

export const WAL_FILE = 'wal';
const FILE_MAGIC = 'QWAL';
const RECORD_MAGIC = 0x31525751; // "QWR1" read as u32 LE
const HEADER = 20;
const RECORD_HEAD = 12;
/**
 * The log grows by zero-filled steps of this size ahead of its records: overwriting allocated blocks
 * lets fdatasync skip the file-size metadata update that an append needs (several times faster per
 * commit). Zeros after the last record read as the end of the log.
 */
const PREALLOCATE = 1 << 20;
const ZEROS = Buffer.alloc(PREALLOCATE);

export interface WalRecord {
  lsn: number;
  /** The payload after the LSN. */
  body: Buffer;
}

export interface WalContents {
  base: number;
  records: WalRecord[];
  /** Byte length of the valid prefix: header and complete records. */
  validEnd: number;
  size: number;
}

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

/** The record at `pos`, or null when it is incomplete or fails its checksum. */
function recordAt(buf: Buffer, pos: number): { lsn: number; body: Buffer; end: number } | null {
  if (pos + RECORD_HEAD > buf.length) return null;
  if (buf.readUInt32LE(pos) !== RECORD_MAGIC) return null;
  const len = buf.readUInt32LE(pos + 4);
  if (len < 8 || pos + RECORD_HEAD + len > buf.length) return null;
  const payload = buf.subarray(pos + RECORD_HEAD, pos + RECORD_HEAD + len);
  if (crc32(payload) !== buf.readUInt32LE(pos + 8)) return null;
  return { lsn: Number(payload.readBigUInt64LE(0)), body: payload.subarray(8), end: pos + RECORD_HEAD + len };
}

/** Reads and checks the whole log; a missing file is null. */
export function readWal(file: string): WalContents | null {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw damaged(file, `cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (buf.length < HEADER || buf.toString('latin1', 0, 4) !== FILE_MAGIC || crc32(buf.subarray(0, 16)) !== buf.readUInt32LE(16)) {
    // The header is written whole (temporary file, fsync, rename) before the log is used.
    throw damaged(file, 'bad header');
  }
  if (buf.readUInt32LE(4) !== 1) throw damaged(file, `unsupported version ${buf.readUInt32LE(4)}`);
  const base = Number(buf.readBigUInt64LE(8));
  const records: WalRecord[] = [];
  let pos = HEADER;
  let expect = base + 1;
  while (pos < buf.length) {
    const r = recordAt(buf, pos);
    if (r === null) {
      // Torn tail, unless a valid record follows somewhere after it.
      for (let p = buf.indexOf('QWR1', pos + 1, 'latin1'); p >= 0; p = buf.indexOf('QWR1', p + 1, 'latin1')) {
        if (recordAt(buf, p) !== null) throw damaged(file, `record ${expect} at byte ${pos} is damaged and valid records follow it`);
      }
      break;
    }
    if (r.lsn !== expect) throw damaged(file, `record at byte ${pos} has LSN ${r.lsn} where ${expect} was expected`);
    records.push({ lsn: r.lsn, body: r.body });
    expect++;
    pos = r.end;
  }
  return { base, records, validEnd: pos, size: buf.length };
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

function writeAll(fd: number, b: Uint8Array, at: number): void {
  let done = 0;
  while (done < b.length) done += fs.writeSync(fd, b, done, b.length - done, at + done);
}

/** The open log of a writer. */
export class WalWriter {
  private fd: number;
  /** Bytes of the log's header and records (the file may be longer: zeros allocated ahead). */
  size: number;
  private allocated: number;
  /** LSN of the last record written. */
  written: number;
  /** LSN up to which records are on disk. */
  private durable: number;
  private syncing: Promise<void> | null = null;
  private failure: QuireError | null = null;
  /** fdatasync calls made, so group commit can be observed. */
  syncs = 0;

  constructor(
    private readonly file: string,
    contents: WalContents,
  ) {
    this.fd = fs.openSync(file, 'r+');
    const last = contents.records.length > 0 ? contents.records[contents.records.length - 1]!.lsn : contents.base;
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

  /** Writes one record (the payload after its LSN); returns its LSN. Durable only after waitDurable. */
  append(pieces: readonly Uint8Array[], bodyBytes: number): number {
    if (this.failure !== null) throw this.failure;
    const lsn = this.written + 1;
    const payload = Buffer.allocUnsafe(8 + bodyBytes);
    payload.writeBigUInt64LE(BigInt(lsn), 0);
    let p = 8;
    for (const piece of pieces) {
      payload.set(piece, p);
      p += piece.length;
    }
    const head = Buffer.allocUnsafe(RECORD_HEAD);
    head.writeUInt32LE(RECORD_MAGIC, 0);
    head.writeUInt32LE(payload.length, 4);
    head.writeUInt32LE(crc32(payload), 8);
    try {
      const end = this.size + RECORD_HEAD + payload.length;
      // Small records go into zeros allocated ahead; a big one (a bulk load) just extends the file.
      if (end > this.allocated && payload.length < PREALLOCATE / 4) {
        writeAll(this.fd, ZEROS, Math.max(this.allocated, this.size));
        this.allocated = Math.max(this.allocated, this.size) + PREALLOCATE;
      }
      writeAll(this.fd, head, this.size);
      writeAll(this.fd, payload, this.size + RECORD_HEAD);
      this.allocated = Math.max(this.allocated, end);
    } catch (e) {
      throw this.fail(e);
    }
    this.size += RECORD_HEAD + payload.length;
    this.written = lsn;
    return lsn;
  }

  /** Resolves once every record up to `lsn` is on disk. */
  async waitDurable(lsn: number): Promise<void> {
    while (this.durable < lsn) {
      if (this.failure !== null) throw this.failure;
      this.syncing ??= this.sync();
      await this.syncing;
    }
  }

  private sync(): Promise<void> {
    const target = this.written;
    const fd = this.fd;
    this.syncs++;
    return new Promise<void>((resolve, reject) => {
      fs.fdatasync(fd, (err) => {
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
    this.size = HEADER;
    this.allocated = HEADER;
    this.durable = this.written;
    // An fdatasync in flight on the old file closes it when it returns.
    if (this.syncing === null) fs.closeSync(old);
  }

  /** Syncs what is not yet durable (a close whose checkpoint failed still keeps its commits), then closes. */
  close(): void {
    const fd = this.fd;
    this.fd = -1;
    try {
      if (this.durable < this.written && this.failure === null) {
        fs.fdatasyncSync(fd);
        this.durable = this.written;
      }
    } finally {
      // An fdatasync in flight closes the file when it returns.
      if (this.syncing === null) fs.closeSync(fd);
    }
  }
}

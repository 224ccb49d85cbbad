/**
 * Where a log record is encoded: its fields and small column data go into one reused buffer, large
 * column buffers are referenced where they are. A small commit's record is then one contiguous
 * buffer, with room left at its start for the record's head (wal.ts fills it in), written with one
 * pwrite and checksummed in one pass, and nothing is allocated for it.
 */

/** Column data from this many bytes up is referenced, not copied. */
export const EXTERNAL_BYTES = 16 << 10;
const SCRATCH_BYTES = 64 << 10;
/** Reused by every record: a record is encoded and written within one synchronous commit. */
const scratch = Buffer.allocUnsafe(SCRATCH_BYTES);

export class RecordBuffer {
  private buf: Buffer;
  private pos: number;
  private segStart = 0;
  private readonly out: Uint8Array[] = [];
  /** Bytes after the reserved head. */
  bytes = 0;

  /** `reserve` bytes at the start of the first piece are left for the caller's head. */
  constructor(reserve: number) {
    this.buf = scratch;
    this.pos = reserve;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    if (this.pos > this.segStart) this.out.push(this.buf.subarray(this.segStart, this.pos));
    // The earlier part stays referenced by its piece; later bytes go into a buffer of their own.
    this.buf = Buffer.allocUnsafe(Math.max(SCRATCH_BYTES, n));
    this.pos = 0;
    this.segStart = 0;
  }

  u8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
    this.bytes += 1;
  }

  u32(v: number): void {
    this.ensure(4);
    this.buf.writeUInt32LE(v, this.pos);
    this.pos += 4;
    this.bytes += 4;
  }

  /** Room for a u32 to be filled in later (set). */
  slot32(): { buf: Buffer; at: number } {
    this.ensure(4);
    const s = { buf: this.buf, at: this.pos };
    this.pos += 4;
    this.bytes += 4;
    return s;
  }

  /** Raw bytes: copied when small, referenced in place when large. */
  raw(piece: Uint8Array): void {
    const n = piece.length;
    if (n >= EXTERNAL_BYTES) {
      if (this.pos > this.segStart) this.out.push(this.buf.subarray(this.segStart, this.pos));
      this.segStart = this.pos;
      this.out.push(piece);
    } else {
      this.ensure(n);
      this.buf.set(piece, this.pos);
      this.pos += n;
    }
    this.bytes += n;
  }

  /** A u32 byte length and the UTF-8 bytes of `s`. */
  str(s: string): void {
    const len = this.slot32();
    const n = this.utf8(s);
    len.buf.writeUInt32LE(n, len.at);
  }

  /** The UTF-8 bytes of `s` (no length); returns their count. */
  utf8(s: string): number {
    this.ensure(s.length * 3);
    const n = this.buf.write(s, this.pos, 'utf8');
    this.pos += n;
    this.bytes += n;
    return n;
  }

  /** A piece encoded elsewhere (a large text column), referenced as it is. */
  external(piece: Uint8Array): void {
    if (this.pos > this.segStart) this.out.push(this.buf.subarray(this.segStart, this.pos));
    this.segStart = this.pos;
    this.out.push(piece);
    this.bytes += piece.length;
  }

  /** The record's pieces in order; the first starts with the reserved head. */
  finish(): Uint8Array[] {
    if (this.pos > this.segStart || this.out.length === 0) this.out.push(this.buf.subarray(this.segStart, this.pos));
    this.segStart = this.pos;
    return this.out;
  }
}

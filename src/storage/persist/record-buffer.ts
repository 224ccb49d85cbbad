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
/** Strings up to this long are tried as ASCII, byte by byte, before Buffer.write (whose call costs more than such a string's bytes). */
const SHORT_TEXT = 64;
/** Typed column data up to this many bytes is copied value by value: a view to copy it through costs more. */
const SMALL_TYPED_BYTES = 256;
/** One value's bytes as the platform stores it, as a view of the column's buffer would give them. */
const one = new ArrayBuffer(8);
const oneF64 = new Float64Array(one);
const oneI32 = new Int32Array(one);
const oneBytes = new Uint8Array(one);

/** A little-endian u32 at `at` of `buf` (what writeUInt32LE writes, without its checks). */
export function setU32(buf: Uint8Array, at: number, v: number): void {
  buf[at] = v;
  buf[at + 1] = v >>> 8;
  buf[at + 2] = v >>> 16;
  buf[at + 3] = v >>> 24;
}

export class RecordBuffer {
  // Declared and assigned in the constructor, not initialized in the class body (which defines each
  // field in an initializer of its own first): one of these is made per commit.
  declare private buf: Buffer;
  declare private pos: number;
  declare private segStart: number;
  declare private readonly out: Uint8Array[];
  /** Bytes after the reserved head. */
  declare bytes: number;

  /** `reserve` bytes at the start of the first piece are left for the caller's head. */
  constructor(reserve: number) {
    this.buf = scratch;
    this.pos = reserve;
    this.segStart = 0;
    this.out = [];
    this.bytes = 0;
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
    setU32(this.buf, this.pos, v);
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

  /**
   * Values from … from + n of a typed column (or null map) as their raw bytes: copied value by value
   * when few (a small commit's row), else as raw() takes them.
   */
  typed(a: Uint8Array | Int32Array | Float64Array, from: number, n: number): void {
    const bytes = n * a.BYTES_PER_ELEMENT;
    if (bytes > SMALL_TYPED_BYTES) {
      this.raw(new Uint8Array(a.buffer, a.byteOffset + from * a.BYTES_PER_ELEMENT, bytes));
      return;
    }
    this.ensure(bytes);
    const buf = this.buf;
    let p = this.pos;
    const end = from + n;
    if (a instanceof Uint8Array) {
      for (let i = from; i < end; i++) buf[p++] = a[i]!;
    } else if (a instanceof Int32Array) {
      for (let i = from; i < end; i++) {
        oneI32[0] = a[i]!;
        for (let b = 0; b < 4; b++) buf[p++] = oneBytes[b]!;
      }
    } else {
      for (let i = from; i < end; i++) {
        oneF64[0] = a[i]!;
        for (let b = 0; b < 8; b++) buf[p++] = oneBytes[b]!;
      }
    }
    this.pos = p;
    this.bytes += bytes;
  }

  /** A u32 byte length and the UTF-8 bytes of `s`. */
  str(s: string): void {
    // Room for the length and the longest UTF-8 form up front, so the bytes follow the length in the
    // same buffer and no slot object is made (two or three strings per commit).
    this.ensure(4 + s.length * 3);
    const buf = this.buf;
    const at = this.pos;
    this.pos += 4;
    this.bytes += 4;
    setU32(buf, at, this.utf8(s));
  }

  /** The UTF-8 bytes of `s` (no length); returns their count. */
  utf8(s: string): number {
    const len = s.length;
    this.ensure(len * 3);
    if (len <= SHORT_TEXT) {
      const buf = this.buf;
      const at = this.pos;
      let i = 0;
      for (; i < len; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[at + i] = c;
      }
      if (i === len) {
        this.pos = at + len;
        this.bytes += len;
        return len;
      }
    }
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
    // A plain view, not Buffer's subarray (argument checks and a Buffer object in JavaScript, felt
    // while a commit's path still runs interpreted): the pieces are only written and checksummed.
    if (this.pos > this.segStart || this.out.length === 0) this.out.push(new Uint8Array(this.buf.buffer, this.buf.byteOffset + this.segStart, this.pos - this.segStart));
    this.segStart = this.pos;
    return this.out;
  }
}

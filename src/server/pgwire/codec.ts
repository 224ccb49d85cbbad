/**
 * Server side of the PostgreSQL v3 protocol codec: a streaming parser for frontend messages and
 * builders for backend messages.
 *
 * pg-protocol (node-postgres' codec) only covers the client direction (it serialises frontend
 * messages and parses backend ones), so this is the mirror image; the tests round-trip through
 * pg-protocol to check both directions against it.
 *
 * Every read is bounds-checked: a malformed body raises ProtocolError instead of reading garbage,
 * and a bad frame (impossible length) is reported as fatal, because after it the byte stream can no
 * longer be split into messages.
 */

export class ProtocolError extends Error {
  constructor(
    message: string,
    /** True when the stream cannot be resynchronised and the connection must close. */
    readonly fatal: boolean,
  ) {
    super(message);
    this.name = 'ProtocolError';
  }
}

export const PROTOCOL_3 = 196608;
export const SSL_REQUEST = 80877103;
export const GSSENC_REQUEST = 80877104;
export const CANCEL_REQUEST = 80877102;

export type StartupMessage =
  | { kind: 'startup'; params: Map<string, string> }
  | { kind: 'ssl' }
  | { kind: 'gssenc' }
  | { kind: 'cancel'; pid: number; key: number };

export interface BindMessage {
  kind: 'bind';
  portal: string;
  statement: string;
  paramFormats: number[];
  /** null = SQL NULL. */
  params: (Buffer | null)[];
  resultFormats: number[];
}

export type FrontendMessage =
  | { kind: 'query'; sql: string }
  | { kind: 'parse'; name: string; sql: string; paramOids: number[] }
  | BindMessage
  | { kind: 'describe'; target: 'S' | 'P'; name: string }
  | { kind: 'execute'; portal: string; maxRows: number }
  | { kind: 'close'; target: 'S' | 'P'; name: string }
  | { kind: 'sync' }
  | { kind: 'flush' }
  | { kind: 'terminate' }
  /** 'p': its meaning (password, SASL initial or continuation) depends on the auth state. */
  | { kind: 'password'; body: Buffer }
  | { kind: 'copyData'; data: Buffer }
  | { kind: 'copyDone' }
  | { kind: 'copyFail'; message: string }
  | { kind: 'functionCall' };

/** Bounds-checked reader over one message body. */
export class Reader {
  private off = 0;
  constructor(private readonly buf: Buffer) {}

  private need(n: number): void {
    if (n < 0 || this.off + n > this.buf.length) throw new ProtocolError('invalid message format', false);
  }
  int16(): number {
    this.need(2);
    const v = this.buf.readInt16BE(this.off);
    this.off += 2;
    return v;
  }
  int32(): number {
    this.need(4);
    const v = this.buf.readInt32BE(this.off);
    this.off += 4;
    return v;
  }
  byte(): number {
    this.need(1);
    return this.buf[this.off++]!;
  }
  cstring(): string {
    const end = this.buf.indexOf(0, this.off);
    if (end < 0) throw new ProtocolError('invalid string in message', false);
    const s = this.buf.toString('utf8', this.off, end);
    this.off = end + 1;
    return s;
  }
  bytes(n: number): Buffer {
    this.need(n);
    const b = this.buf.subarray(this.off, this.off + n);
    this.off += n;
    return b;
  }
  rest(): Buffer {
    const b = this.buf.subarray(this.off);
    this.off = this.buf.length;
    return b;
  }
  get remaining(): number {
    return this.buf.length - this.off;
  }
  end(): void {
    if (this.off !== this.buf.length) throw new ProtocolError('invalid message format', false);
  }
}

/** Non-negative count from an int16, guarding against negative counts in hostile input. */
function count(r: Reader): number {
  const n = r.int16();
  if (n < 0) throw new ProtocolError('invalid message format', false);
  return n;
}

export function parseFrontend(type: number, body: Buffer): FrontendMessage {
  const r = new Reader(body);
  let m: FrontendMessage;
  switch (String.fromCharCode(type)) {
    case 'Q':
      m = { kind: 'query', sql: r.cstring() };
      break;
    case 'P': {
      const name = r.cstring();
      const sql = r.cstring();
      const n = count(r);
      const paramOids: number[] = [];
      for (let i = 0; i < n; i++) paramOids.push(r.int32() >>> 0);
      m = { kind: 'parse', name, sql, paramOids };
      break;
    }
    case 'B': {
      const portal = r.cstring();
      const statement = r.cstring();
      const nf = count(r);
      const paramFormats: number[] = [];
      for (let i = 0; i < nf; i++) paramFormats.push(r.int16());
      const np = count(r);
      const params: (Buffer | null)[] = [];
      for (let i = 0; i < np; i++) {
        const len = r.int32();
        if (len === -1) params.push(null);
        else if (len < -1) throw new ProtocolError('invalid message format', false);
        else params.push(Buffer.from(r.bytes(len)));
      }
      const nr = count(r);
      const resultFormats: number[] = [];
      for (let i = 0; i < nr; i++) resultFormats.push(r.int16());
      m = { kind: 'bind', portal, statement, paramFormats, params, resultFormats };
      break;
    }
    case 'D':
    case 'C': {
      const t = String.fromCharCode(r.byte());
      if (t !== 'S' && t !== 'P') throw new ProtocolError(`invalid ${type === 0x44 ? 'DESCRIBE' : 'CLOSE'} message subtype ${t.charCodeAt(0)}`, false);
      const name = r.cstring();
      m = type === 0x44 ? { kind: 'describe', target: t, name } : { kind: 'close', target: t, name };
      break;
    }
    case 'E': {
      const portal = r.cstring();
      const maxRows = r.int32();
      m = { kind: 'execute', portal, maxRows: maxRows < 0 ? 0 : maxRows };
      break;
    }
    case 'S':
      m = { kind: 'sync' };
      break;
    case 'H':
      m = { kind: 'flush' };
      break;
    case 'X':
      m = { kind: 'terminate' };
      break;
    case 'p':
      return { kind: 'password', body: Buffer.from(r.rest()) };
    case 'd':
      return { kind: 'copyData', data: Buffer.from(r.rest()) };
    case 'c':
      m = { kind: 'copyDone' };
      break;
    case 'f':
      m = { kind: 'copyFail', message: r.cstring() };
      break;
    case 'F':
      return { kind: 'functionCall' };
    default:
      throw new ProtocolError(`invalid frontend message type ${type}`, true);
  }
  r.end();
  return m;
}

export function parseStartup(body: Buffer): StartupMessage {
  const r = new Reader(body);
  const code = r.int32();
  if (code === SSL_REQUEST) return { kind: 'ssl' };
  if (code === GSSENC_REQUEST) return { kind: 'gssenc' };
  if (code === CANCEL_REQUEST) {
    const pid = r.int32();
    const key = r.int32();
    return { kind: 'cancel', pid, key };
  }
  if (code >>> 16 !== 3) throw new ProtocolError(`unsupported frontend protocol ${code >>> 16}.${code & 0xffff}: server supports 3.0`, true);
  const params = new Map<string, string>();
  for (;;) {
    if (r.remaining === 0) throw new ProtocolError('invalid startup packet layout: expected terminator as last byte', true);
    const k = r.cstring();
    if (k === '') break;
    params.set(k, r.cstring());
  }
  if (r.remaining !== 0) throw new ProtocolError('invalid startup packet layout: expected terminator as last byte', true);
  return { kind: 'startup', params };
}

export interface FrameLimits {
  /** Largest regular message accepted (PostgreSQL's own limit is 1 GB). */
  maxMessage: number;
  /** Largest message accepted before authentication (startup packet included); lifted by `authenticated()`. */
  maxPreAuth?: number;
}

/** PostgreSQL's MAX_STARTUP_PACKET_LENGTH. */
const MAX_STARTUP_PACKET = 10000;

/**
 * Splits the byte stream into messages. The startup phase has no type byte; after startup every
 * message is type + int32 length (which counts itself). Bytes are only copied once a whole message
 * has arrived, so a huge declared length costs nothing until the data is really sent.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private avail = 0;
  startup = true;
  private maxMessage: number;

  constructor(private readonly limits: FrameLimits) {
    this.maxMessage = limits.maxPreAuth ?? limits.maxMessage;
  }

  /** From now on the regular message limit applies (the client is authenticated). */
  authenticated(): void {
    this.maxMessage = this.limits.maxMessage;
  }

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.avail += chunk.length;
  }

  private peek(n: number): Buffer {
    if (this.chunks[0]!.length < n) {
      const all = Buffer.concat(this.chunks);
      this.chunks = [all];
    }
    return this.chunks[0]!;
  }

  private take(n: number): Buffer {
    const head = this.peek(n);
    const out = head.subarray(0, n);
    if (head.length === n) this.chunks.shift();
    else this.chunks[0] = head.subarray(n);
    this.avail -= n;
    return out;
  }

  /** Next complete frame, or null when more bytes are needed. Throws a fatal ProtocolError on a bad frame. */
  next(): { type: number; body: Buffer } | null {
    if (this.startup) {
      if (this.avail < 4) return null;
      const len = this.peek(4).readInt32BE(0);
      if (len < 8 || len > MAX_STARTUP_PACKET) throw new ProtocolError('invalid length of startup packet', true);
      if (len > this.maxMessage) throw new ProtocolError(`startup packet of ${len} bytes is larger than the ${this.maxMessage} bytes accepted before authentication`, true);
      if (this.avail < len) return null;
      const frame = this.take(len);
      return { type: 0, body: Buffer.from(frame.subarray(4)) };
    }
    if (this.avail < 5) return null;
    const head = this.peek(5);
    const type = head[0]!;
    const len = head.readInt32BE(1);
    if (len < 4) throw new ProtocolError(`invalid message length ${len}`, true);
    if (len > this.maxMessage) {
      // Refused on the header: a hostile length costs nothing, the body is never waited for.
      throw new ProtocolError(this.maxMessage === this.limits.maxMessage ? `invalid message length ${len}` : `message of ${len} bytes is larger than the ${this.maxMessage} bytes accepted before authentication`, true);
    }
    if (this.avail < len + 1) return null;
    const frame = this.take(len + 1);
    return { type, body: Buffer.from(frame.subarray(5)) };
  }

  /** Drops everything buffered (the connection is being closed). */
  discard(): void {
    this.chunks = [];
    this.avail = 0;
  }

  get buffered(): number {
    return this.avail;
  }
}

// ---- backend messages ----

/** Growable buffer for one backend message; `finish` fills in the length. */
export class MessageBuilder {
  private buf: Buffer;
  private off = 5;

  constructor(type: string, capacity = 64) {
    this.buf = Buffer.allocUnsafe(Math.max(capacity, 16));
    this.buf[0] = type.charCodeAt(0);
  }
  private ensure(n: number): void {
    if (this.off + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.off + n));
    this.buf.copy(next, 0, 0, this.off);
    this.buf = next;
  }
  int8(v: number): this {
    this.ensure(1);
    this.buf[this.off++] = v & 0xff;
    return this;
  }
  int16(v: number): this {
    this.ensure(2);
    this.buf.writeInt16BE(v, this.off);
    this.off += 2;
    return this;
  }
  int32(v: number): this {
    this.ensure(4);
    this.buf.writeInt32BE(v | 0, this.off);
    this.off += 4;
    return this;
  }
  cstring(s: string): this {
    const n = Buffer.byteLength(s);
    this.ensure(n + 1);
    this.buf.write(s, this.off, 'utf8');
    this.off += n;
    this.buf[this.off++] = 0;
    return this;
  }
  bytes(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.off);
    this.off += b.length;
    return this;
  }
  finish(): Buffer {
    this.buf.writeInt32BE(this.off - 1, 1);
    return this.buf.subarray(0, this.off);
  }
}

export interface FieldDescription {
  name: string;
  tableOid: number;
  column: number;
  typeOid: number;
  typeSize: number;
  typeModifier: number;
  format: number;
}

export interface ErrorFields {
  severity: 'ERROR' | 'FATAL' | 'PANIC' | 'WARNING' | 'NOTICE' | 'DEBUG' | 'INFO' | 'LOG';
  code: string;
  message: string;
  detail?: string;
  hint?: string;
  position?: number;
}

/** A message kept for reuse, in memory of its own (not a slice that holds a whole pool slab). */
function kept(b: Buffer): Buffer {
  const own = Buffer.allocUnsafeSlow(b.length);
  b.copy(own);
  return own;
}

/** ReadyForQuery for each transaction status: the same six bytes end every reply, made once. */
const READY: Record<'I' | 'T' | 'E', Buffer> = {
  I: kept(new MessageBuilder('Z').int8(0x49).finish()),
  T: kept(new MessageBuilder('Z').int8(0x54).finish()),
  E: kept(new MessageBuilder('Z').int8(0x45).finish()),
};

/**
 * CommandComplete messages of recent tags: an autocommit loop's replies repeat one tag ("INSERT 0 1")
 * and then cost no message of their own. Bounded; the buffers are never written after they are made
 * (flush copies them into the reply).
 */
const completeCache = new Map<string, Buffer>();

/** Messages without fields: one buffer each, never written after it is made (as READY). */
const PARSE_COMPLETE = kept(new MessageBuilder('1').finish());
const BIND_COMPLETE = kept(new MessageBuilder('2').finish());
const CLOSE_COMPLETE = kept(new MessageBuilder('3').finish());
const NO_DATA = kept(new MessageBuilder('n').finish());
const PORTAL_SUSPENDED = kept(new MessageBuilder('s').finish());
const EMPTY_QUERY = kept(new MessageBuilder('I').finish());
const COMPLETE_CACHE_MAX = 64;

function commandComplete(tag: string): Buffer {
  let b = completeCache.get(tag);
  if (b === undefined) {
    b = kept(new MessageBuilder('C').cstring(tag).finish());
    if (completeCache.size >= COMPLETE_CACHE_MAX) completeCache.clear();
    completeCache.set(tag, b);
  }
  return b;
}

export const backend = {
  authOk: (): Buffer => new MessageBuilder('R').int32(0).finish(),
  authCleartext: (): Buffer => new MessageBuilder('R').int32(3).finish(),
  authSasl: (mechanisms: string[]): Buffer => {
    const m = new MessageBuilder('R').int32(10);
    for (const x of mechanisms) m.cstring(x);
    return m.int8(0).finish();
  },
  authSaslContinue: (data: string): Buffer => new MessageBuilder('R').int32(11).bytes(Buffer.from(data)).finish(),
  authSaslFinal: (data: string): Buffer => new MessageBuilder('R').int32(12).bytes(Buffer.from(data)).finish(),
  parameterStatus: (name: string, value: string): Buffer => new MessageBuilder('S').cstring(name).cstring(value).finish(),
  backendKeyData: (pid: number, key: number): Buffer => new MessageBuilder('K').int32(pid).int32(key).finish(),
  readyForQuery: (status: 'I' | 'T' | 'E'): Buffer => READY[status],
  parseComplete: (): Buffer => PARSE_COMPLETE,
  bindComplete: (): Buffer => BIND_COMPLETE,
  closeComplete: (): Buffer => CLOSE_COMPLETE,
  noData: (): Buffer => NO_DATA,
  portalSuspended: (): Buffer => PORTAL_SUSPENDED,
  emptyQuery: (): Buffer => EMPTY_QUERY,
  commandComplete,
  parameterDescription: (oids: number[]): Buffer => {
    const m = new MessageBuilder('t').int16(oids.length);
    for (const o of oids) m.int32(o);
    return m.finish();
  },
  rowDescription: (fields: FieldDescription[]): Buffer => {
    const m = new MessageBuilder('T', 32 + fields.length * 32).int16(fields.length);
    for (const f of fields) {
      m.cstring(f.name).int32(f.tableOid).int16(f.column).int32(f.typeOid).int16(f.typeSize).int32(f.typeModifier).int16(f.format);
    }
    return m.finish();
  },
  /** Values already encoded (text as UTF-8 or binary); null = SQL NULL. */
  dataRow: (values: (Buffer | null)[]): Buffer => {
    let size = 7;
    for (const v of values) size += 4 + (v === null ? 0 : v.length);
    const buf = Buffer.allocUnsafe(size);
    buf[0] = 0x44;
    buf.writeInt32BE(size - 1, 1);
    buf.writeInt16BE(values.length, 5);
    let off = 7;
    for (const v of values) {
      if (v === null) {
        buf.writeInt32BE(-1, off);
        off += 4;
      } else {
        buf.writeInt32BE(v.length, off);
        off += 4;
        v.copy(buf, off);
        off += v.length;
      }
    }
    return buf;
  },
  error: (f: ErrorFields): Buffer => noticeOrError('E', f),
  notice: (f: ErrorFields): Buffer => noticeOrError('N', f),
  copyOutResponse: (columns: number): Buffer => {
    const m = new MessageBuilder('H').int8(0).int16(columns);
    for (let i = 0; i < columns; i++) m.int16(0);
    return m.finish();
  },
  copyInResponse: (): Buffer => new MessageBuilder('G').int8(0).int16(0).finish(),
  copyData: (data: Buffer): Buffer => new MessageBuilder('d', data.length + 8).bytes(data).finish(),
  copyDone: (): Buffer => new MessageBuilder('c').finish(),
};

function noticeOrError(type: 'E' | 'N', f: ErrorFields): Buffer {
  const m = new MessageBuilder(type, 128);
  m.int8(0x53).cstring(f.severity); // S: localized severity
  m.int8(0x56).cstring(f.severity); // V: non-localized severity (clients since 9.6 prefer it)
  m.int8(0x43).cstring(f.code);
  m.int8(0x4d).cstring(f.message);
  if (f.detail !== undefined) m.int8(0x44).cstring(f.detail);
  if (f.hint !== undefined) m.int8(0x48).cstring(f.hint);
  if (f.position !== undefined && f.position > 0) m.int8(0x50).cstring(String(f.position));
  return m.int8(0).finish();
}

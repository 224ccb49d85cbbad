/**
 * Streaming building blocks shared by COPY (copy-format.ts) and the file table functions:
 *
 *  - LineReader: splits incoming text into records exactly as PostgreSQL's CopyReadLineText does
 *    (newline-style detection and consistency errors, backslash skipping and the `\.` end marker in
 *    text mode, quote tracking in CSV mode so quoted newlines stay inside the record). Resumable
 *    across chunks, so a record spanning many chunks is scanned once (no quadratic re-scans).
 *  - splitCsvLine: PostgreSQL's CopyReadAttributesCSV (quotes may open anywhere in a field,
 *    the NULL string matches only unquoted raw input).
 *  - UTF-8 validation with PostgreSQL's messages, file globbing and file opening with PostgreSQL's
 *    error texts.
 *
 * Written by hand rather than on csv-parse: PostgreSQL semantics need per-field "was it quoted"
 * against the raw input, quotes in the middle of fields, and COPY's EOL rules, which csv-parse
 * either lacks or only approximates through relax options.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { QuireError } from '../common/errors.js';
import { firstInvalidUtf8, utf8SequenceLength } from '../common/utf8-bytes.js';
import { reportProgress, type ProgressHandle } from './progress.js';
import { expandGlobSync } from './glob-walk.js';

export type LineMode = 'text' | 'csv';

export interface LineReaderOptions {
  readonly mode: LineMode;
  /** CSV quote and escape characters (single characters). */
  readonly quote?: string;
  readonly escape?: string;
  /**
   * COPY's rules: newline style fixed by the first line (mixing is an error) and, in text mode,
   * `\.` ends the data. Off for read_csv, which accepts any mix of \n, \r\n and \r.
   */
  readonly strict: boolean;
}

const EOL_UNKNOWN = 0;
const EOL_NL = 1;
const EOL_CR = 2;
const EOL_CRNL = 3;

function badFormat(message: string, hint?: string): QuireError {
  return new QuireError('22P04', message, hint === undefined ? {} : { hint });
}

function charClass(chars: string[]): RegExp {
  const uniq = [...new Set(chars.filter((c) => c !== ''))];
  return new RegExp('[' + uniq.map((c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')).join('') + ']', 'g');
}

export class LineReader {
  /** PostgreSQL's cur_lineno: the physical line number reached by the record last returned. */
  lineNo = 0;
  /** True once the input is exhausted (or the end marker was seen) and every record was returned. */
  done = false;
  private buf = '';
  private pos = 0;
  private scan = 0;
  private lineStarted = false;
  private inQuote = false;
  private lastWasEsc = false;
  private lastEscAt = -2;
  private eol = EOL_UNKNOWN;
  private ended = false;
  private readonly csv: boolean;
  private readonly quote: string;
  private readonly escape: string;
  private readonly strict: boolean;
  private readonly outRe: RegExp;
  private readonly inRe: RegExp;

  constructor(opts: LineReaderOptions) {
    this.csv = opts.mode === 'csv';
    this.strict = opts.strict;
    this.quote = opts.quote ?? '"';
    // As in PostgreSQL: an escape equal to the quote is no escape at all, "" is two toggles.
    const esc = opts.escape ?? this.quote;
    this.escape = esc === this.quote ? '' : esc;
    this.outRe = this.csv ? charClass(['\r', '\n', this.quote]) : charClass(['\r', '\n', '\\']);
    this.inRe = charClass([this.quote, this.escape]);
  }

  push(chunk: string): void {
    if (this.pos > 0) {
      this.buf = this.buf.slice(this.pos);
      this.scan -= this.pos;
      this.lastEscAt -= this.pos;
      this.pos = 0;
    }
    this.buf = this.buf.length === 0 ? chunk : this.buf + chunk;
  }

  finish(): void {
    this.ended = true;
  }

  private take(end: number, next: number): string {
    const line = this.buf.slice(this.pos, end);
    this.pos = next;
    this.scan = next;
    this.lineStarted = false;
    return line;
  }

  /** The next complete record (without its terminator), or null: more input needed, or `done`. */
  next(): string | null {
    if (this.done) return null;
    const buf = this.buf;
    const len = buf.length;
    if (!this.lineStarted) {
      if (this.pos >= len) {
        if (this.ended) this.done = true;
        return null;
      }
      this.lineStarted = true;
      this.lineNo++;
    }
    for (;;) {
      if (this.inQuote) {
        const re = this.inRe;
        re.lastIndex = this.scan;
        const m = re.exec(buf);
        const idx = m === null ? len : m.index;
        this.countQuotedNewlines(this.scan, idx);
        if (m === null) {
          this.scan = len;
          if (!this.ended) return null;
          // Unterminated quote: the record is the rest of the input; the splitter raises the error.
          return this.take(len, len);
        }
        const c = buf[idx]!;
        if (c === this.escape) {
          this.lastWasEsc = !(this.lastWasEsc && this.lastEscAt === idx - 1);
          this.lastEscAt = idx;
        } else {
          const escaped = this.lastWasEsc && this.lastEscAt === idx - 1;
          if (!escaped) this.inQuote = false;
          this.lastWasEsc = false;
        }
        this.scan = idx + 1;
        continue;
      }
      const re = this.outRe;
      re.lastIndex = this.scan;
      const m = re.exec(buf);
      if (m === null) {
        this.scan = len;
        if (!this.ended) return null;
        return this.take(len, len);
      }
      const idx = m.index;
      const c = buf[idx]!;
      if (c === '\n') {
        if (this.strict && (this.eol === EOL_CR || this.eol === EOL_CRNL)) {
          throw this.csv
            ? badFormat('unquoted newline found in data', 'Use quoted CSV field to represent newline.')
            : badFormat('literal newline found in data', 'Use "\\n" to represent newline.');
        }
        if (this.eol === EOL_UNKNOWN) this.eol = EOL_NL;
        return this.take(idx, idx + 1);
      }
      if (c === '\r') {
        if (!this.strict) {
          if (idx + 1 >= len && !this.ended) {
            this.scan = idx;
            return null;
          }
          return this.take(idx, buf[idx + 1] === '\n' ? idx + 2 : idx + 1);
        }
        if (this.eol === EOL_UNKNOWN || this.eol === EOL_CRNL) {
          if (idx + 1 >= len && !this.ended) {
            this.scan = idx;
            return null;
          }
          if (buf[idx + 1] === '\n') {
            this.eol = EOL_CRNL;
            return this.take(idx, idx + 2);
          }
          if (this.eol === EOL_CRNL) throw this.crError();
          this.eol = EOL_CR;
          return this.take(idx, idx + 1);
        }
        if (this.eol === EOL_NL) throw this.crError();
        return this.take(idx, idx + 1);
      }
      if (c === this.quote && this.csv) {
        this.inQuote = true;
        this.lastWasEsc = false;
        this.scan = idx + 1;
        continue;
      }
      // Text mode backslash: the next character is data (so \<newline> and \\. are not special).
      if (idx + 1 >= len) {
        if (!this.ended) {
          this.scan = idx;
          return null;
        }
        return this.take(len, len);
      }
      if (buf[idx + 1] !== '.' || !this.strict) {
        this.scan = idx + 2;
        continue;
      }
      const r = this.endMarker(idx);
      if (r === null) {
        this.scan = idx;
        return null;
      }
      this.done = true;
      return null;
    }
  }

  private crError(): QuireError {
    return this.csv
      ? badFormat('unquoted carriage return found in data', 'Use quoted CSV field to represent carriage return.')
      : badFormat('literal carriage return found in data', 'Use "\\r" to represent carriage return.');
  }

  /** PostgreSQL 18's `\.` checks; null when more input is needed to decide. */
  private endMarker(idx: number): true | null {
    const buf = this.buf;
    let p = idx + 2;
    const at = (i: number): string | null => (i < buf.length ? buf[i]! : this.ended ? '\0' : null);
    const notAlone = (): QuireError => badFormat('end-of-copy marker is not alone on its line');
    const style = (): QuireError => badFormat('end-of-copy marker does not match previous newline style');
    if (this.eol === EOL_CRNL) {
      const c2 = at(p++);
      if (c2 === null) return null;
      if (c2 === '\n') throw style();
      if (c2 !== '\r') throw notAlone();
    }
    const c2 = at(p++);
    if (c2 === null) return null;
    if (c2 !== '\r' && c2 !== '\n') throw notAlone();
    if ((this.eol === EOL_NL && c2 !== '\n') || (this.eol === EOL_CRNL && c2 !== '\n') || (this.eol === EOL_CR && c2 !== '\r')) throw style();
    if (idx > this.pos) throw notAlone();
    return true;
  }

  /** PostgreSQL counts the newlines inside quoted CSV fields in cur_lineno (of the detected style). */
  private countQuotedNewlines(from: number, to: number): void {
    const nl = this.eol === EOL_NL ? '\n' : '\r';
    let i = this.buf.indexOf(nl, from);
    while (i !== -1 && i < to) {
      this.lineNo++;
      i = this.buf.indexOf(nl, i + 1);
    }
  }
}

export interface CsvDialect {
  readonly delimiter: string;
  readonly quote: string;
  readonly escape: string;
  /** Unquoted raw input equal to this is NULL. */
  readonly nullString: string;
}

/**
 * Splits one record into fields (PostgreSQL's CopyReadAttributesCSV). `out[i]` is the field text,
 * null when the unquoted raw input equals the NULL string; `quoted[i]` is 1 when any part was quoted.
 * Returns the field count.
 */
export function splitCsvLine(line: string, d: CsvDialect, out: (string | null)[], quoted: number[]): number {
  const delim = d.delimiter;
  const q = d.quote;
  const nullString = d.nullString;
  if (line.indexOf(q) === -1) {
    // Fast path: nothing quoted, so fields are the raw pieces.
    let n = 0;
    let start = 0;
    for (;;) {
      const i = line.indexOf(delim, start);
      const raw = i === -1 ? line.slice(start) : line.slice(start, i);
      out[n] = raw === nullString ? null : raw;
      quoted[n] = 0;
      n++;
      if (i === -1) break;
      start = i + 1;
    }
    return n;
  }
  const esc = d.escape;
  const end = line.length;
  let n = 0;
  let cur = 0;
  for (;;) {
    const start = cur;
    let sawQuote = false;
    let value = '';
    let runStart = cur;
    let foundDelim = false;
    for (;;) {
      // Outside quotes: up to a delimiter, an opening quote or the end of the line.
      let opened = false;
      while (cur < end) {
        const c = line[cur]!;
        if (c === delim) {
          foundDelim = true;
          break;
        }
        if (c === q) {
          opened = true;
          break;
        }
        cur++;
      }
      value += line.slice(runStart, cur);
      if (!opened) {
        if (foundDelim) cur++;
        break;
      }
      cur++;
      // Inside quotes: escape + (quote | escape) is a literal, a lone quote closes.
      sawQuote = true;
      runStart = cur;
      for (;;) {
        if (cur >= end) throw badFormat('unterminated CSV quoted field');
        const c = line[cur++]!;
        if (c === esc && cur < end) {
          const nc = line[cur]!;
          if (nc === esc || nc === q) {
            value += line.slice(runStart, cur - 1) + nc;
            cur++;
            runStart = cur;
            continue;
          }
        }
        if (c === q) {
          value += line.slice(runStart, cur - 1);
          runStart = cur;
          break;
        }
      }
    }
    const rawEnd = foundDelim ? cur - 1 : cur;
    out[n] = !sawQuote && rawEnd - start === nullString.length && line.startsWith(nullString, start) ? null : value;
    quoted[n] = sawQuote ? 1 : 0;
    n++;
    if (!foundDelim) break;
  }
  return n;
}

// ---- UTF-8 -------------------------------------------------------------------------------------

/** Index of the first byte PostgreSQL's pg_verifymbstr rejects (NUL included), or -1. */
export function findInvalidUtf8(s: Uint8Array, from = 0, to = s.length): number {
  return firstInvalidUtf8(s, from, to, true);
}

/** PostgreSQL's report_invalid_encoding for the bytes at `i`. */
export function invalidUtf8Error(s: Uint8Array, i: number, to = s.length): QuireError {
  const l = utf8SequenceLength(s[i]!);
  const parts: string[] = [];
  for (let j = 0; j < l && i + j < to; j++) parts.push('0x' + s[i + j]!.toString(16).padStart(2, '0'));
  return new QuireError('22021', `invalid byte sequence for encoding "UTF8": ${parts.join(' ')}`);
}

/**
 * Incremental UTF-8 decoding that rejects what PostgreSQL rejects (invalid sequences, NUL bytes),
 * keeping a byte order mark as data when asked (COPY does; CSV readers strip it).
 */
export class Utf8Decoder {
  private readonly dec: InstanceType<typeof TextDecoder>;
  private pending: Uint8Array | null = null;

  constructor(keepBom: boolean) {
    this.dec = new TextDecoder('utf-8', { fatal: true, ignoreBOM: keepBom });
  }

  decode(chunk: string | Uint8Array, final = false): string {
    if (typeof chunk === 'string') {
      if (chunk.indexOf('\0') !== -1) throw new QuireError('22021', 'invalid byte sequence for encoding "UTF8": 0x00');
      return chunk;
    }
    try {
      const s = this.dec.decode(chunk, { stream: !final });
      if (s.indexOf('\0') !== -1) throw new QuireError('22021', 'invalid byte sequence for encoding "UTF8": 0x00');
      this.pending = chunk.length > 4 ? chunk.subarray(chunk.length - 4) : chunk;
      return s;
    } catch (e) {
      if (e instanceof QuireError) throw e;
      // Locate the offending bytes for PostgreSQL's message (the tail of the previous chunk may
      // hold the start of the sequence).
      const prev = this.pending ?? new Uint8Array(0);
      const all = new Uint8Array(prev.length + chunk.length);
      all.set(prev, 0);
      all.set(chunk, prev.length);
      let i = findInvalidUtf8(all, 0, all.length);
      // Skip false hits in the already-validated prefix (it may start mid-sequence).
      while (i !== -1 && i < prev.length) {
        const j = findInvalidUtf8(all, i + 1, all.length);
        if (j === -1) break;
        i = j;
      }
      throw i === -1 ? new QuireError('22021', 'invalid byte sequence for encoding "UTF8"') : invalidUtf8Error(all, i);
    }
  }
}

// ---- files ---------------------------------------------------------------------------------------

/** PostgreSQL's message for a file COPY or a reader cannot open. */
export function fileOpenError(file: string, e: unknown): QuireError {
  const code = (e as { code?: string }).code;
  switch (code) {
    case 'ENOENT':
      return new QuireError('58P01', `could not open file "${file}" for reading: No such file or directory`);
    case 'EACCES':
      return new QuireError('42501', `could not open file "${file}" for reading: Permission denied`);
    case 'EISDIR':
      return new QuireError('58030', `could not open file "${file}" for reading: Is a directory`);
    default:
      return new QuireError('58030', `could not read file "${file}": ${(e as Error).message}`);
  }
}

/**
 * Files matching a glob, sorted; a pattern without wildcards is returned as is (opening it reports a
 * missing file). The walk and its bounds are in glob-walk.ts.
 */
export function expandFileGlob(pattern: string): string[] {
  return expandGlobSync(pattern);
}

/** Reads the first `maxBytes` of a file synchronously (schema inference runs at bind time). */
export function readFileHead(file: string, maxBytes: number): { text: string; complete: boolean } {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    throw fileOpenError(file, e);
  }
  try {
    const buf = Buffer.alloc(maxBytes);
    let n = 0;
    for (;;) {
      const r = fs.readSync(fd, buf, n, maxBytes - n, null);
      if (r === 0) break;
      n += r;
      if (n >= maxBytes) break;
    }
    const complete = n < maxBytes || fs.fstatSync(fd).size <= n;
    // Cut at the last complete UTF-8 sequence so the sample never ends mid-character.
    let end = n;
    if (!complete) {
      let i = n - 1;
      while (i > 0 && i > n - 4 && (buf[i]! & 0xc0) === 0x80) i--;
      if (i >= 0 && (buf[i]! & 0x80) !== 0 && utf8SequenceLength(buf[i]!) > n - i) end = i;
    }
    const text = new TextDecoder('utf-8').decode(buf.subarray(0, end));
    return { text, complete };
  } catch (e) {
    throw e instanceof QuireError ? e : fileOpenError(file, e);
  } finally {
    fs.closeSync(fd);
  }
}

/** Whether a path names a gzip file (read_csv's compression => 'auto'). */
export function isGzipPath(file: string): boolean {
  return /\.(gz|gzip)$/i.test(file);
}

function gzipError(file: string, e: unknown): QuireError {
  return new QuireError('22P04', `could not decompress gzip file "${file}": ${(e as Error).message}`);
}

/**
 * The first `maxBytes` of a file's content as bytes, decompressed when `gzip` (schema inference runs
 * at bind time, synchronously). `complete` when that is the whole content.
 */
export function readFileHeadBytes(file: string, maxBytes: number, gzip: boolean): { bytes: Buffer; complete: boolean } {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    throw fileOpenError(file, e);
  }
  try {
    const size = fs.fstatSync(fd).size;
    const readPrefix = (n: number): Buffer => {
      const buf = Buffer.alloc(Math.min(n, size));
      let got = 0;
      while (got < buf.length) {
        const r = fs.readSync(fd, buf, got, buf.length - got, got);
        if (r === 0) break;
        got += r;
      }
      return buf.subarray(0, got);
    };
    if (!gzip) {
      const bytes = readPrefix(maxBytes);
      return { bytes, complete: bytes.length >= size };
    }
    // Decompress growing prefixes until enough content is out (a flushed partial stream decodes
    // up to where it was cut). The output cap keeps a highly compressible file from ballooning.
    let n = 1 << 16;
    for (;;) {
      const prefix = readPrefix(n);
      const whole = prefix.length >= size;
      let out: Buffer;
      try {
        out = zlib.gunzipSync(prefix, { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: Math.max(maxBytes * 64, 1 << 26) });
      } catch (e) {
        if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' && n > 1024) {
          n >>= 2;
          continue;
        }
        throw gzipError(file, e);
      }
      if (out.length >= maxBytes) return { bytes: out.subarray(0, maxBytes), complete: whole && out.length === maxBytes };
      if (whole) return { bytes: out, complete: true };
      n *= 4;
    }
  } catch (e) {
    throw e instanceof QuireError ? e : fileOpenError(file, e);
  } finally {
    fs.closeSync(fd);
  }
}

export interface ChunkOptions {
  /** Bytes per chunk read (the last one may be shorter). */
  readonly chunkBytes?: number;
  /** Decompress gzip while reading. */
  readonly gzip?: boolean;
}

/**
 * Chunks of a file, with PostgreSQL's error when it cannot be opened. Reports bytes read against the
 * file's size to the progress listener under `label` (the reader's name), so every text reader and
 * COPY FROM get the CLI's --progress bar without tracking rows themselves. With `gzip`, progress
 * counts compressed bytes (the file's size is all that is known up front).
 */
export async function* readFileChunks(file: string, signal?: AbortSignal, label = 'read', opts: ChunkOptions = {}): AsyncGenerator<Buffer> {
  const stream = fs.createReadStream(file, { highWaterMark: opts.chunkBytes ?? 1 << 16 });
  let progress = null as ProgressHandle | null;
  const advance = (n: number): void => {
    // Opened by now, so the size is there; a file that grows while read just overshoots 100%.
    progress ??= reportProgress(`${label} ${path.basename(file)}`, fs.statSync(file).size, 'bytes');
    progress.advance(n);
  };
  let source: AsyncIterable<unknown> = stream;
  let gunzip: zlib.Gunzip | null = null;
  if (opts.gzip === true) {
    const gz = zlib.createGunzip(opts.chunkBytes !== undefined ? { chunkSize: Math.max(64, opts.chunkBytes) } : {});
    gunzip = gz;
    stream.on('data', (c) => advance((c as Buffer).length));
    stream.on('error', (e) => gz.destroy(e));
    stream.pipe(gz);
    source = gz;
  }
  try {
    for await (const chunk of source) {
      if (signal?.aborted) throw new QuireError('57014', 'canceling statement due to user request');
      if (gunzip === null) advance((chunk as Buffer).length);
      yield chunk as Buffer;
    }
  } catch (e) {
    if (e instanceof QuireError) throw e;
    if (gunzip !== null && typeof (e as { code?: unknown }).code === 'string' && (e as { code: string }).code.startsWith('Z_')) throw gzipError(file, e);
    throw fileOpenError(file, e);
  } finally {
    progress?.done();
    stream.destroy();
    gunzip?.destroy();
  }
}

/**
 * Reads a file in fixed-size chunks into a small ring of reused buffers, keeping `depth` reads in
 * flight while the caller parses the current chunk (a thread-pool round trip per read would otherwise
 * leave the parser idle on a busy machine). Each buffer keeps `reserve` bytes free in front of its
 * chunk so the caller's unconsumed tail (a record cut by the chunk end) is copied there instead of
 * concatenating whole chunks; a longer tail falls back to one fresh buffer.
 */
export class PrefetchReader {
  private fh: fs.promises.FileHandle | null = null;
  private readonly bufs: Buffer[];
  /** Reads in flight, oldest first: the ring slot and the file position each fills. */
  private readonly queue: { slot: number; at: number; bytes: Promise<number> }[] = [];
  private current = -1;
  private nextAt = 0;
  private eof = false;
  private progress: ProgressHandle | null = null;

  constructor(
    private readonly file: string,
    private readonly chunkBytes: number,
    private readonly reserve: number,
    private readonly signal: AbortSignal | undefined,
    private readonly label: string,
    private readonly depth = 2,
  ) {
    this.bufs = Array.from({ length: depth + 1 }, () => Buffer.allocUnsafe(reserve + chunkBytes));
  }

  private issue(slot: number): void {
    const at = this.nextAt;
    this.nextAt += this.chunkBytes;
    const bytes = this.fh!.read(this.bufs[slot]!, this.reserve, this.chunkBytes, at).then((r) => r.bytesRead);
    // Settled later (or dropped on close); never an unhandled rejection meanwhile.
    bytes.catch(() => {});
    this.queue.push({ slot, at, bytes });
  }

  /**
   * The next chunk with `tail` in front of it: bytes [start, end) of `buf`; null once the file is
   * exhausted (and `tail` is empty, since no new bytes follow it).
   */
  async next(tail: Uint8Array): Promise<{ buf: Buffer; start: number; end: number } | null> {
    if (this.signal?.aborted) throw new QuireError('57014', 'canceling statement due to user request');
    try {
      if (this.fh === null) {
        this.fh = await fs.promises.open(this.file, 'r');
        this.progress = reportProgress(`${this.label} ${path.basename(this.file)}`, (await this.fh.stat()).size, 'bytes');
        for (let k = 0; k < this.depth; k++) this.issue(k);
      }
      if (this.eof) return null;
      const head = this.queue.shift()!;
      const n = await head.bytes;
      this.progress?.advance(n);
      if (n === 0) {
        this.eof = true;
        return null;
      }
      if (n < this.chunkBytes) {
        // A short read: the reads queued behind it assumed a full one. Drop them and go on from here.
        for (const q of this.queue.splice(0)) await q.bytes.catch(() => 0);
        this.nextAt = head.at + n;
      }
      const buf = this.bufs[head.slot]!;
      let out: { buf: Buffer; start: number; end: number };
      if (tail.length <= this.reserve) {
        buf.set(tail, this.reserve - tail.length);
        out = { buf, start: this.reserve - tail.length, end: this.reserve + n };
      } else {
        const big = Buffer.allocUnsafe(tail.length + n);
        big.set(tail, 0);
        buf.copy(big, tail.length, this.reserve, this.reserve + n);
        out = { buf: big, start: 0, end: big.length };
      }
      // The buffer parsed until now held the tail, copied by now: it takes the next read. (Slots
      // cycle, so a fresh reader's spare slot `depth` goes first.)
      const free = this.current === -1 ? this.depth : this.current;
      this.current = head.slot;
      this.issue(free);
      while (this.queue.length < this.depth) {
        // After a short read, refill the ring with the slots that are neither current nor queued.
        const used = new Set([this.current, ...this.queue.map((q) => q.slot)]);
        const slot = this.bufs.findIndex((_, k) => !used.has(k));
        if (slot < 0) break;
        this.issue(slot);
      }
      return out;
    } catch (e) {
      if (e instanceof QuireError) throw e;
      throw fileOpenError(this.file, e);
    }
  }

  async close(): Promise<void> {
    this.progress?.done();
    this.progress = null;
    for (const q of this.queue.splice(0)) await q.bytes.catch(() => 0);
    await this.fh?.close();
    this.fh = null;
  }
}

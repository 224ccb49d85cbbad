/**
 * Byte-level CSV tokenizer for read_csv: finds delimiters, quotes and record ends in Buffers and
 * records each field as a byte range, so no string or object is made per row. Converting the ranges
 * into column values is csv-columns.ts's job.
 *
 * Quoting follows PostgreSQL's CSV rules (CopyReadAttributesCSV): a quote may open anywhere in a
 * field, inside quotes `escape` followed by the quote or the escape is a literal, and with the
 * escape equal to the quote a doubled quote is one quote. Records end at \n, \r\n or \r (any mix),
 * except inside quotes. Empty records are skipped.
 *
 * The scanner works on one buffer at a time; a record cut by the end of the buffer is left for the
 * next call, which starts again at that record with the next chunk appended (push()).
 *
 * It does not step through every byte: special-byte-index.ts lists where the delimiters, quotes,
 * escapes and line ends are, 64 KiB at a time, and the scanner goes from one to the next. A row of
 * plain CSV then costs a handful of steps rather than one per byte, which in JavaScript was the
 * larger part of reading a file.
 */
import { QuireError } from '../common/errors.js';
import { INDEX_WINDOW, SpecialByteIndex } from './special-byte-index.js';
import { csvPlainKernel, type CsvPlainKernel } from './csv-plain-kernel.js';

/** Field flags: some part was quoted (so it is never NULL); the bytes need unquoting. */
export const F_QUOTED = 1;
export const F_COMPLEX = 2;

export interface ByteDialect {
  readonly delimiter: number;
  readonly quote: number;
  /** -1 when the escape is the quote itself (then a doubled quote is a literal quote). */
  readonly escape: number;
}

const NL = 10;
const CR = 13;

/** Why scan() returned. */
export const SCAN_FULL = 0;
export const SCAN_NEED_MORE = 1;
export const SCAN_END = 2;
export type ScanStatus = typeof SCAN_FULL | typeof SCAN_NEED_MORE | typeof SCAN_END;

export class CsvScanner {
  /** The current buffer; token offsets index into it until the next push(). */
  buf: Buffer = Buffer.alloc(0);
  private pos = 0;
  private end = 0;
  private final = false;
  /** Physical line number of the byte at `pos` (1-based; quoted newlines count, as in COPY). */
  private line = 1;
  /** Records still to drop before tokenizing (the `skip` option; empty records count). */
  skipRecords = 0;

  /** Field byte ranges and flags, row-major with `width` slots per row. */
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly flags: Uint8Array;
  /** Fields seen in each row (may exceed `width`: the excess is counted, not stored). */
  readonly counts: Int32Array;
  /** Line number where each row starts, and its byte range (for errors and rejects). */
  readonly rowLines: Float64Array;
  readonly rowStarts: Int32Array;
  readonly rowEnds: Int32Array;
  /** Rows tokenized by the last scan(). */
  rows = 0;
  /** Byte range the last scan() consumed (whole records), for encoding checks. */
  scannedFrom = 0;
  scannedTo = 0;
  /**
   * Record ends seen so far by kind, and empty records (skipped). A reader with PostgreSQL COPY's
   * rules needs them: COPY fixes the line ending on the first line and counts an empty line as a
   * record, where this scanner accepts any mix and skips empty lines.
   */
  lfEnds = 0;
  crEnds = 0;
  crlfEnds = 0;
  emptyRecords = 0;

  private readonly delim: number;
  private readonly quote: number;
  private readonly escape: number;

  constructor(
    d: ByteDialect,
    readonly width: number,
    readonly capacity: number,
    private readonly maxRecordBytes: number,
    /** Give short rows empty fields up to `width` (converters read every slot; a sampler need not). */
    private readonly padRows = true,
    /** Tests: smaller index windows (to put their edges anywhere), and the scalar index. */
    tuning: { readonly indexWindow?: number; readonly simd?: boolean; readonly plain?: boolean } = {},
  ) {
    this.delim = d.delimiter;
    this.quote = d.quote;
    this.escape = d.escape;
    this.index = new SpecialByteIndex(d.delimiter, d.quote, d.escape === -1 ? d.quote : d.escape, tuning.simd ?? true);
    this.window = Math.max(1, Math.min(INDEX_WINDOW, tuning.indexWindow ?? INDEX_WINDOW));
    this.plain = (tuning.simd ?? true) && (tuning.plain ?? true) ? csvPlainKernel() : null;
    this.starts = new Int32Array(width * capacity);
    this.ends = new Int32Array(width * capacity);
    this.flags = new Uint8Array(width * capacity);
    this.counts = new Int32Array(capacity);
    this.rowLines = new Float64Array(capacity);
    this.rowStarts = new Int32Array(capacity);
    this.rowEnds = new Int32Array(capacity);
  }

  /** Appends a chunk after the unconsumed tail of the current buffer. */
  push(chunk: Buffer): void {
    const tail = this.end - this.pos;
    if (tail === 0) {
      this.buf = chunk;
    } else {
      if (tail > this.maxRecordBytes) throw this.tooLong();
      const nb = Buffer.allocUnsafe(tail + chunk.length);
      this.buf.copy(nb, 0, this.pos, this.end);
      chunk.copy(nb, tail);
      this.buf = nb;
    }
    this.pos = 0;
    this.end = this.buf.length;
    this.ixAt = -1;
  }

  /** Switches to bytes [start, end) of `buf`, which begin with the unconsumed tail (see tail()). */
  setBuffer(buf: Buffer, start: number, end: number): void {
    this.buf = buf;
    this.pos = start;
    this.end = end;
    this.ixAt = -1;
  }

  /** The bytes not consumed yet (a record cut by the end of the buffer). */
  tail(): Buffer {
    return this.buf.subarray(this.pos, this.end);
  }

  /** Bytes pushed and not yet consumed. */
  get pendingBytes(): number {
    return this.end - this.pos;
  }

  /** Skips a UTF-8 byte order mark at the current position (call at the start of a file). */
  dropBom(): void {
    const b = this.buf;
    const p = this.pos;
    if (this.end - p >= 3 && b[p] === 0xef && b[p + 1] === 0xbb && b[p + 2] === 0xbf) this.pos = p + 3;
  }

  /** No more input: the last record may end without a newline. */
  finish(): void {
    this.final = true;
  }

  /** Number of the line the next record starts on. */
  get lineNumber(): number {
    return this.line;
  }

  private tooLong(): QuireError {
    return new QuireError('54000', `CSV record starting at line ${this.line} is longer than max_line_size (${this.maxRecordBytes} bytes)`, {
      hint: 'Raise max_line_size, or check the quote and escape options (an unbalanced quote makes the rest of the file one field).',
    });
  }

  /**
   * Tokenizes up to `maxRows` records into rows 0… of the token arrays. SCAN_FULL: maxRows reached
   * (or call again); SCAN_NEED_MORE: the rest of the buffer is an incomplete record; SCAN_END: input
   * exhausted. The loop goes from one special byte to the next (delimiter, quote, escape, line end);
   * quoted runs are read in it too, since a method call per quoted field cost a third of the walk.
   */
  scan(maxRows: number): ScanStatus {
    const buf = this.buf;
    const end = this.end;
    const delim = this.delim;
    const quote = this.quote;
    const escape = this.escape;
    const width = this.width;
    const starts = this.starts;
    const ends = this.ends;
    const flags = this.flags;
    let rows = 0;
    let i = this.pos;
    let line = this.line;
    this.scannedFrom = i;
    let status: ScanStatus = SCAN_FULL;
    let wentBack = false;
    // The positions left from the last call hold for this buffer only while nothing moved `pos`.
    if (this.ixAt !== i) this.resetIndex(i);
    const ix = this.index.positions;
    let k = this.ixK;
    let cnt = this.ixCount;
    while (rows < maxRows) {
      if (this.plain !== null && this.skipRecords === 0) {
        if (this.plainPause > 0) this.plainPause--;
        else {
          const n = this.plainRows(i, rows, maxRows, line);
          if (n > 0) {
            rows += n;
            line += this.plainLines;
            i = this.rowEnds[rows - 1]! + 1;
            this.plainPenalty = 1;
            // The positions indexed so far are behind i or still ahead of it: indexing starts again at i.
            this.ixCount = 0;
            this.ixTo = i;
            k = 0;
            cnt = 0;
            continue;
          }
          // A record the kernel does not read: the next ones are read here, more of them each time
          // it is refused, so a file of quoted records does not pay for a kernel call per record.
          this.plainPause = this.plainPenalty;
          this.plainPenalty = Math.min(2 * this.plainPenalty, 1024);
        }
      }
      const recStart = i;
      const base = rows * width;
      let f = 0;
      let fs = i;
      let fl = 0;
      let quotedLines = 0;
      let exhausted = false;
      for (;;) {
        // The next special byte at or after i (or `end`: none left).
        let p = end;
        for (;;) {
          if (k < cnt) {
            p = ix[k++]!;
            if (p >= i) break;
            continue;
          }
          if (this.ixTo >= end) {
            p = end;
            break;
          }
          this.refill(i);
          k = 0;
          cnt = this.ixCount;
        }
        if (p >= end) {
          exhausted = true;
          i = end;
          break;
        }
        const c = buf[p]!;
        if (c === delim) {
          if (fl === 0 && f < width) {
            starts[base + f] = fs;
            ends[base + f] = p;
            flags[base + f] = 0;
          } else if (f < width) this.setField(base + f, fs, p, fl);
          f++;
          i = p + 1;
          fs = i;
          fl = 0;
          continue;
        }
        if (c === NL || c === CR) {
          i = p;
          break;
        }
        if (c === quote) {
          // A quoted run: only quotes, escapes and line ends count until the closing quote.
          const qStart = p;
          fl = fl === 0 && p === fs ? F_QUOTED : F_QUOTED | F_COMPLEX;
          i = p + 1;
          let closed = false;
          for (;;) {
            p = end;
            for (;;) {
              if (k < cnt) {
                p = ix[k++]!;
                if (p >= i) break;
                continue;
              }
              if (this.ixTo >= end) {
                p = end;
                break;
              }
              this.refill(i);
              k = 0;
              cnt = this.ixCount;
            }
            if (p >= end) break;
            const q = buf[p]!;
            if (q === escape || (escape === -1 && q === quote)) {
              // escape + (quote | escape) is a literal; with no separate escape, "" is a quote.
              if (p + 1 >= end && !this.final) break;
              const n2 = p + 1 < end ? buf[p + 1]! : -1;
              if (n2 === quote || (escape !== -1 && n2 === escape)) {
                fl = F_QUOTED | F_COMPLEX;
                i = p + 2;
                continue;
              }
            }
            if (q === quote) {
              closed = true;
              break;
            }
            if (q === NL || (q === CR && (p + 1 >= end || buf[p + 1] !== NL))) quotedLines++;
            i = p + 1;
          }
          if (!closed) {
            exhausted = true;
            i = qStart;
            break;
          }
          this.runStart = qStart + 1;
          this.runEnd = p;
          i = p + 1;
          continue;
        }
        // An escape byte outside quotes is data.
        i = p + 1;
      }
      let next: number;
      if (exhausted) {
        this.line = line;
        const st = this.atEnd(recStart, rows, i);
        if (st !== -1) {
          status = st;
          i = st === SCAN_END ? end : recStart;
          wentBack = true;
          break;
        }
        // The last record has no newline.
        i = end;
        next = end;
      } else if (buf[i] === CR) {
        next = i + 1;
        if (next >= end && !this.final) {
          status = SCAN_NEED_MORE;
          i = recStart;
          wentBack = true;
          break;
        }
        if (next < end && buf[next] === NL) {
          next++;
          this.crlfEnds++;
        } else this.crEnds++;
      } else {
        next = i + 1;
        this.lfEnds++;
      }
      const recLine = line;
      line += quotedLines + 1;
      if (i === recStart) {
        // Empty record: skipped, but still one of the `skip` records.
        if (this.skipRecords > 0) this.skipRecords--;
        else this.emptyRecords++;
        i = next;
        continue;
      }
      if (fl === 0 && f < width) {
        starts[base + f] = fs;
        ends[base + f] = i;
        flags[base + f] = 0;
      } else if (f < width) this.setField(base + f, fs, i, fl);
      f++;
      if (this.skipRecords > 0) {
        this.skipRecords--;
      } else {
        this.finishRow(rows, f, recStart, i, recLine);
        rows++;
      }
      i = next;
    }
    this.pos = i;
    this.line = line;
    this.rows = rows;
    this.scannedTo = i;
    this.ixK = k;
    // A scan that went back to the start of a record has used positions past it: the next one indexes afresh.
    this.ixAt = wentBack ? -1 : i;
    if (status === SCAN_NEED_MORE && end - i > this.maxRecordBytes) throw this.tooLong();
    return status;
  }

  /** Tokenizes runs of plain records (see csv-plain-kernel.ts); null without WebAssembly. */
  private readonly plain: CsvPlainKernel | null;
  /** Records to read here before the plain kernel is tried again, and the next such pause. */
  private plainPause = 0;
  private plainPenalty = 1;
  /** Whether the kernel that reads quoted fields goes first (it read the last records taken). */
  private plainQuoted = false;
  /** The lines the records of the last plainRows() took, their quoted line ends included. */
  private plainLines = 0;

  /**
   * The records the kernel takes at buf[i …) into rows `rows` …, as the loop in scan() would read
   * them (each ends in '\n'; line ends inside quotes are counted too); returns how many.
   */
  private plainRows(i: number, rows: number, maxRows: number, line: number): number {
    const k = this.plain!;
    const width = this.width;
    const quote = this.quote;
    let quoted = this.plainQuoted;
    let n = k.run(this.buf, i, this.end, this.delim, quote, this.escape, width, maxRows - rows, quoted);
    if (n === 0 && !quoted && quote !== -1 && (this.escape === -1 || this.escape === quote)) {
      // Quoted records: the kernel that reads quotes takes over while it reads them.
      n = k.run(this.buf, i, this.end, this.delim, quote, this.escape, width, maxRows - rows, true);
      quoted = this.plainQuoted = n > 0;
    }
    this.plainLines = n;
    if (n === 0) return 0;
    const base = rows * width;
    this.starts.set(k.starts.subarray(0, n * width), base);
    this.ends.set(k.ends.subarray(0, n * width), base);
    if (quoted) this.flags.set(k.flags.subarray(0, n * width), base);
    else this.flags.fill(0, base, base + n * width);
    this.counts.fill(width, rows, rows + n);
    const kEnds = k.rowEnds;
    const qLines = k.rowQuotedLines;
    const rowStarts = this.rowStarts;
    const rowEnds = this.rowEnds;
    const rowLines = this.rowLines;
    let s = i;
    // A record starts on the line after the previous one's end, quoted line ends counted (none in
    // plain CSV: a line each).
    const quotedLines = quoted && k.rowQuotedLines[n - 1]! !== 0;
    if (quotedLines) this.plainLines = n + k.rowQuotedLines[n - 1]!;
    for (let r = 0; r < n; r++) {
      const e = kEnds[r]!;
      rowStarts[rows + r] = s;
      rowEnds[rows + r] = e;
      rowLines[rows + r] = quotedLines && r > 0 ? line + r + qLines[r - 1]! : line + r;
      s = e + 1;
    }
    this.lfEnds += n;
    return n;
  }

  /** Positions of the special bytes of the current buffer, a window at a time (see special-byte-index.ts). */
  private readonly index: SpecialByteIndex;
  private readonly window: number;
  /** Positions held, the next one to read, where the indexed bytes end, and the `pos` they hold for. */
  private ixCount = 0;
  private ixK = 0;
  private ixTo = 0;
  private ixAt = -1;

  private resetIndex(at: number): void {
    this.ixCount = 0;
    this.ixK = 0;
    this.ixTo = at;
    this.ixAt = at;
  }

  /** Indexes the next window: from where the last one ended, or from `i` when that is further on. */
  private refill(i: number): void {
    const from = Math.max(this.ixTo, i);
    const to = Math.min(this.end, from + this.window);
    this.ixCount = this.index.fill(this.buf, from, to);
    this.ixK = 0;
    this.ixTo = to;
  }

  /** The content range of the last quoted run (a field that is just that run is its content). */
  private runStart = 0;
  private runEnd = 0;

  /**
   * The input ran out inside the record starting at `recStart` (its scan reached `i`): a status to
   * return, or -1 when the record is the last one and ends without a newline.
   */
  private atEnd(recStart: number, rows: number, i: number): ScanStatus | -1 {
    if (!this.final) return SCAN_NEED_MORE;
    if (i < this.end) {
      // Stopped inside an unterminated quote. Hand out the records before it first.
      if (rows > 0) return SCAN_FULL;
      this.pos = this.end;
      throw new QuireError('22P04', 'unterminated CSV quoted field');
    }
    if (i === recStart) return SCAN_END;
    return -1;
  }

  private setField(slot: number, fs: number, fe: number, fl: number): void {
    // A field that is one plain quoted run ("abc", nothing after the closing quote) is its content.
    if (fl === F_QUOTED && this.runEnd + 1 === fe && this.runStart - 1 === fs) {
      this.starts[slot] = this.runStart;
      this.ends[slot] = this.runEnd;
      this.flags[slot] = F_QUOTED;
      return;
    }
    this.starts[slot] = fs;
    this.ends[slot] = fe;
    this.flags[slot] = fl === F_QUOTED ? F_QUOTED | F_COMPLEX : fl;
  }

  private finishRow(row: number, count: number, recStart: number, recEnd: number, recLine: number): void {
    this.counts[row] = count;
    this.rowStarts[row] = recStart;
    this.rowEnds[row] = recEnd;
    this.rowLines[row] = recLine;
    // Missing fields read as empty and unquoted, so converters need no bounds checks; the row
    // itself is rejected for its count.
    const width = this.width;
    if (count < width && this.padRows) {
      const base = row * width;
      for (let f = count; f < width; f++) {
        this.starts[base + f] = recEnd;
        this.ends[base + f] = recEnd;
        this.flags[base + f] = 0;
      }
    }
  }

  /** Bytes s … e as a one-byte string (ASCII callers only: number syntax already checked). */
  latin1(s: number, e: number): string {
    const b = this.buf as unknown as { latin1Slice?(s: number, e: number): string };
    return typeof b.latin1Slice === 'function' ? b.latin1Slice(s, e) : this.buf.toString('latin1', s, e);
  }

  /**
   * Writes a field's bytes, unquoted and unescaped, to `out` from `at` (it has room for the raw
   * bytes); returns where they end.
   */
  unquoteTo(slot: number, out: Uint8Array, at: number): number {
    return unquoteInto(this.buf, this.starts[slot]!, this.ends[slot]!, this.quote, this.escape, out, at) + at;
  }

  /** The text of a field: unquoted and unescaped, decoded as UTF-8. */
  fieldText(slot: number, ascii = false): string {
    const s = this.starts[slot]!;
    const e = this.ends[slot]!;
    if ((this.flags[slot]! & F_COMPLEX) === 0) return this.buf.toString('utf8', s, e);
    if (this.scratch.length < e - s) this.scratch = Buffer.allocUnsafe(Math.max(e - s, this.scratch.length * 2));
    const n = unquoteInto(this.buf, s, e, this.quote, this.escape, this.scratch);
    if (ascii) {
      // Known ASCII (the caller checked the region): the one-byte decode is the cheapest.
      const sl = this.scratch as unknown as { latin1Slice?(s: number, e: number): string };
      if (typeof sl.latin1Slice === 'function') return sl.latin1Slice(0, n);
    }
    return this.scratch.toString('utf8', 0, n);
  }
  /** Reused for unquoting, so a field with doubled quotes costs no allocation besides its string. */
  private scratch = Buffer.allocUnsafe(256);

  /** The raw bytes of a row, decoded (error messages and rejects). */
  rowText(row: number): string {
    return this.buf.toString('utf8', this.rowStarts[row]!, this.rowEnds[row]!);
  }
}

/**
 * Writes the bytes of a field with its quotes removed and escapes resolved (PostgreSQL's CSV rules)
 * to `out` from `at` (room for e - s bytes); returns their count.
 */
export function unquoteInto(buf: Uint8Array, s: number, e: number, quote: number, escape: number, out: Uint8Array, at = 0): number {
  let n = at;
  let inQuote = false;
  let i = s;
  while (i < e) {
    const c = buf[i]!;
    if (!inQuote) {
      if (c === quote) inQuote = true;
      else out[n++] = c;
      i++;
      continue;
    }
    if ((c === escape || (escape === -1 && c === quote)) && i + 1 < e) {
      const nc = buf[i + 1]!;
      if (nc === quote || (escape !== -1 && nc === escape)) {
        out[n++] = nc;
        i += 2;
        continue;
      }
    }
    if (c === quote) inQuote = false;
    else out[n++] = c;
    i++;
  }
  return n - at;
}

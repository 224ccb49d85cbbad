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
 */
import { QuireError } from '../common/errors.js';

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

  private readonly delim: number;
  private readonly quote: number;
  private readonly escape: number;
  /** Bytes above this are never special, so the hot loop skips them with one compare. */
  private readonly maxSpecial: number;

  constructor(
    d: ByteDialect,
    readonly width: number,
    readonly capacity: number,
    private readonly maxRecordBytes: number,
  ) {
    this.delim = d.delimiter;
    this.quote = d.quote;
    this.escape = d.escape;
    this.maxSpecial = Math.max(d.delimiter, d.quote, d.escape, NL, CR);
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
   * Tokenizes up to `maxRows` records into rows 0… of the token arrays. SCAN_FULL: maxRows reached;
   * SCAN_NEED_MORE: the rest of the buffer is an incomplete record; SCAN_END: input exhausted.
   */
  scan(maxRows: number): ScanStatus {
    const buf = this.buf;
    const end = this.end;
    const final = this.final;
    const delim = this.delim;
    const quote = this.quote;
    const escape = this.escape;
    const maxSpecial = this.maxSpecial;
    const width = this.width;
    const starts = this.starts;
    const ends = this.ends;
    const flags = this.flags;
    let rows = 0;
    let i = this.pos;
    let line = this.line;
    this.scannedFrom = i;
    let status: ScanStatus = SCAN_FULL;
    records: while (rows < maxRows) {
      const recStart = i;
      const recLine = line;
      const base = rows * width;
      let f = 0;
      let fs = i;
      let fl = 0;
      // Content start/end of the field when it is one plain quoted run ("abc").
      let qs = -1;
      let qe = -1;
      for (;;) {
        if (i >= end) {
          if (!final) {
            status = SCAN_NEED_MORE;
            i = recStart;
            line = recLine;
            break records;
          }
          if (i === recStart) {
            status = SCAN_END;
            break records;
          }
          // The last record has no newline.
          if (f < width) this.setField(base + f, fs, i, fl, qs, qe);
          f++;
          break;
        }
        const c = buf[i]!;
        if (c > maxSpecial) {
          i++;
          continue;
        }
        if (c === delim) {
          if (f < width) this.setField(base + f, fs, i, fl, qs, qe);
          f++;
          i++;
          fs = i;
          fl = 0;
          qs = -1;
          continue;
        }
        if (c === NL || c === CR) {
          let next = i + 1;
          if (c === CR) {
            if (next >= end && !final) {
              status = SCAN_NEED_MORE;
              i = recStart;
              line = recLine;
              break records;
            }
            if (next < end && buf[next] === NL) next++;
          }
          line++;
          if (i === recStart) {
            // Empty record: skipped, but still one of the `skip` records.
            i = next;
            if (this.skipRecords > 0) this.skipRecords--;
            continue records;
          }
          if (f < width) this.setField(base + f, fs, i, fl, qs, qe);
          f++;
          const recEnd = i;
          i = next;
          if (this.skipRecords > 0) {
            this.skipRecords--;
            continue records;
          }
          this.finishRow(rows, f, recStart, recEnd, recLine);
          rows++;
          continue records;
        }
        if (c === quote) {
          // A quoted run: the field is simple only if it is exactly one run with no escapes.
          fl = fl === 0 && i === fs ? F_QUOTED : F_QUOTED | F_COMPLEX;
          i++;
          const runStart = i;
          for (;;) {
            if (i >= end) {
              if (!final) {
                status = SCAN_NEED_MORE;
                i = recStart;
                line = recLine;
                break records;
              }
              if (rows > 0) {
                // Hand out the records before it first; the next call raises the error.
                status = SCAN_FULL;
                i = recStart;
                line = recLine;
                break records;
              }
              this.line = recLine;
              this.pos = end;
              throw new QuireError('22P04', 'unterminated CSV quoted field');
            }
            const q = buf[i]!;
            if (q === escape || (escape === -1 && q === quote)) {
              // escape + (quote | escape) is a literal; with no separate escape, "" is a quote.
              if (i + 1 >= end && !final) {
                status = SCAN_NEED_MORE;
                i = recStart;
                line = recLine;
                break records;
              }
              const n2 = i + 1 < end ? buf[i + 1]! : -1;
              if (n2 === quote || (escape !== -1 && n2 === escape)) {
                fl = F_QUOTED | F_COMPLEX;
                i += 2;
                continue;
              }
            }
            if (q === quote) break;
            if (q === NL || (q === CR && (i + 1 >= end || buf[i + 1] !== NL))) line++;
            i++;
          }
          if (fl === F_QUOTED) {
            qs = runStart;
            qe = i;
          }
          i++;
          continue;
        }
        // A quote-free special byte above NL/CR (the escape outside quotes is data).
        i++;
      }
      // Reached only for the final record without a newline.
      if (this.skipRecords > 0) {
        this.skipRecords--;
      } else {
        this.finishRow(rows, f, recStart, i, recLine);
        rows++;
      }
    }
    this.pos = i;
    this.line = line;
    this.rows = rows;
    this.scannedTo = i;
    if (status === SCAN_NEED_MORE && end - i > this.maxRecordBytes) throw this.tooLong();
    return status;
  }

  private setField(slot: number, fs: number, fe: number, fl: number, qs: number, qe: number): void {
    // A simple quoted field followed by more bytes ("ab"c) is no longer one run.
    if (fl === F_QUOTED && qe + 1 === fe) {
      this.starts[slot] = qs;
      this.ends[slot] = qe;
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
    if (count < width) {
      const base = row * width;
      for (let f = count; f < width; f++) {
        this.starts[base + f] = recEnd;
        this.ends[base + f] = recEnd;
        this.flags[base + f] = 0;
      }
    }
  }

  /** The text of a field: unquoted and unescaped, decoded as UTF-8. */
  fieldText(slot: number): string {
    const s = this.starts[slot]!;
    const e = this.ends[slot]!;
    if ((this.flags[slot]! & F_COMPLEX) === 0) return this.buf.toString('utf8', s, e);
    return unquote(this.buf, s, e, this.quote, this.escape).toString('utf8');
  }

  /** The raw bytes of a row, decoded (error messages and rejects). */
  rowText(row: number): string {
    return this.buf.toString('utf8', this.rowStarts[row]!, this.rowEnds[row]!);
  }
}

/** The bytes of a field with its quotes removed and escapes resolved (PostgreSQL's CSV rules). */
export function unquote(buf: Uint8Array, s: number, e: number, quote: number, escape: number): Buffer {
  const out = Buffer.allocUnsafe(e - s);
  let n = 0;
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
  return out.subarray(0, n);
}

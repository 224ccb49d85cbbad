/**
 * The byte-level CSV scanner against the string reference kept for COPY (LineReader + splitCsvLine,
 * PostgreSQL's CSV rules) on random input cut into random chunks: same records, same field texts,
 * same quoted flags, same unterminated-quote error.
 */
import { describe, expect, it } from 'vitest';
import { LineReader, splitCsvLine } from '../../src/storage/csv.js';
import { CsvScanner, F_QUOTED, SCAN_FULL } from '../../src/storage/csv-scanner.js';
import { csvPlainKernel } from '../../src/storage/csv-plain-kernel.js';

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Dialect {
  delimiter: string;
  quote: string;
  escape: string;
}

type Row = [string, boolean][];

function reference(text: string, d: Dialect): Row[] | 'unterminated' {
  const reader = new LineReader({ mode: 'csv', quote: d.quote, escape: d.escape, strict: false });
  reader.push(text);
  reader.finish();
  const rows: Row[] = [];
  const out: (string | null)[] = [];
  const quoted: number[] = [];
  for (;;) {
    const line = reader.next();
    if (line === null) break;
    if (line === '') continue;
    try {
      const n = splitCsvLine(line, { ...d, nullString: '\u0000never' }, out, quoted);
      rows.push(out.slice(0, n).map((s, i) => [s ?? '', quoted[i] === 1]));
    } catch {
      return 'unterminated';
    }
  }
  return rows;
}

interface Tuning {
  indexWindow?: number;
  simd?: boolean;
}

function scanned(bytes: Buffer, d: Dialect, chunk: () => number, tuning: Tuning = {}): Row[] | 'unterminated' {
  const q = d.quote.charCodeAt(0);
  const e = d.escape.charCodeAt(0);
  const sc = new CsvScanner({ delimiter: d.delimiter.charCodeAt(0), quote: q, escape: e === q ? -1 : e }, 64, 3, 1 << 20, true, tuning);
  const rows: Row[] = [];
  const drain = (): void => {
    for (;;) {
      const st = sc.scan(3);
      for (let r = 0; r < sc.rows; r++) {
        const row: Row = [];
        for (let f = 0; f < sc.counts[r]!; f++) row.push([sc.fieldText(r * 64 + f), (sc.flags[r * 64 + f]! & F_QUOTED) !== 0]);
        rows.push(row);
      }
      if (st !== SCAN_FULL) return;
    }
  };
  try {
    let at = 0;
    while (at < bytes.length) {
      const n = Math.min(bytes.length - at, chunk());
      sc.push(bytes.subarray(at, at + n));
      at += n;
      drain();
    }
    sc.finish();
    drain();
  } catch (err) {
    if ((err as { message?: string }).message === 'unterminated CSV quoted field') return 'unterminated';
    throw err;
  }
  return rows;
}

/** Everything a scan reports, record by record, with or without the plain-record kernel. */
function tokens(bytes: Buffer, d: Dialect, width: number, capacity: number, maxChunk: number, seed: number, plain: boolean): unknown[] {
  const q = d.quote.charCodeAt(0);
  const e = d.escape.charCodeAt(0);
  const sc = new CsvScanner({ delimiter: d.delimiter.charCodeAt(0), quote: q, escape: e === q ? -1 : e }, width, capacity, 1 << 20, true, { plain });
  const r = rng(seed);
  const out: unknown[] = [];
  const drain = (): void => {
    for (;;) {
      const st = sc.scan(capacity);
      for (let row = 0; row < sc.rows; row++) {
        const fields: unknown[] = [];
        for (let f = 0; f < Math.min(width, sc.counts[row]!); f++) fields.push([sc.fieldText(row * width + f), sc.flags[row * width + f]]);
        out.push([sc.counts[row], sc.rowLines[row], sc.rowText(row), fields]);
      }
      out.push([st, sc.lineNumber, sc.lfEnds, sc.crEnds, sc.crlfEnds, sc.emptyRecords]);
      if (st !== SCAN_FULL) return;
    }
  };
  let at = 0;
  while (at < bytes.length) {
    const n = Math.min(bytes.length - at, 1 + Math.floor(r() * maxChunk));
    sc.push(bytes.subarray(at, at + n));
    at += n;
    drain();
  }
  sc.finish();
  drain();
  return out;
}

const DIALECTS: Dialect[] = [
  { delimiter: ',', quote: '"', escape: '"' },
  { delimiter: ';', quote: "'", escape: '\\' },
  { delimiter: ',', quote: '"', escape: '\\' },
  { delimiter: '|', quote: '"', escape: '"' },
];

/** Counts the records the WebAssembly kernel reads until stop(), which restores it and returns the count. */
function countKernelRecords(): { stop(): number } {
  const kernel = csvPlainKernel()!;
  const run = kernel.run.bind(kernel);
  let read = 0;
  kernel.run = (...args) => {
    const n = run(...args);
    read += n;
    return n;
  };
  return {
    stop() {
      kernel.run = run;
      return read;
    },
  };
}

describe('CsvScanner', () => {
  it('splits random input like the reference, whatever the chunking', () => {
    const r = rng(42);
    for (let trial = 0; trial < 1500; trial++) {
      const d = DIALECTS[trial % DIALECTS.length]!;
      const alphabet = ['a', 'b', '1', ' ', 'é', '日', '😀', d.delimiter, d.quote, d.quote, d.escape, '\n', '\r', '\r\n', ',', '|'];
      const len = Math.floor(r() * 40);
      let text = '';
      for (let i = 0; i < len; i++) text += alphabet[Math.floor(r() * alphabet.length)]!;
      const expected = reference(text, d);
      const maxChunk = 1 + Math.floor(r() * 9);
      const got = scanned(Buffer.from(text), d, () => 1 + Math.floor(r() * maxChunk));
      expect({ text, got }).toEqual({ text, got: expected });
      // Index windows of a few bytes put their edges inside quoted runs, between the two bytes of
      // CRLF and of a doubled quote, and inside multibyte characters; the scalar index finds the same.
      const window = 1 + Math.floor(r() * 7);
      const simd = trial % 3 !== 0;
      const inWindows = scanned(Buffer.from(text), d, () => 1 + Math.floor(r() * maxChunk), { indexWindow: window, simd });
      expect({ text, window, simd, got: inWindows }).toEqual({ text, window, simd, got: expected });
    }
  });

  it('reads input far longer than one index window, in chunks of any size', () => {
    const r = rng(7);
    for (const d of DIALECTS) {
      const alphabet = ['abc', '12.5', ' ', 'é', '日本', d.delimiter, d.delimiter, d.quote, d.escape, '\n', '\r\n', '\n', 'xyz'];
      let text = '';
      while (text.length < 300_000) text += alphabet[Math.floor(r() * alphabet.length)]!;
      const expected = reference(text, d);
      for (const maxChunk of [1 << 16, 100_003, 1 << 20]) {
        const got = scanned(Buffer.from(text), d, () => 1 + Math.floor(r() * maxChunk));
        expect(got === expected || JSON.stringify(got) === JSON.stringify(expected)).toBe(true);
      }
    }
  });

  it('reads runs of plain records in the WebAssembly kernel exactly as its own loop does', () => {
    // Records of exactly `width` fields, mostly plain; now and then one the kernel leaves to the loop
    // (quoted, CRLF, empty, too short or too long, a lone CR), at every chunking and batch size.
    const r = rng(11);
    // Records the kernel read, so the comparison is known to cover it.
    const counted = countKernelRecords();
    for (let trial = 0; trial < 60; trial++) {
      const d = DIALECTS[trial % DIALECTS.length]!;
      const width = 1 + (trial % 6);
      const words = ['', 'a', '12', '-3.25', 'é', '日本語', 'word word', '2020-01-01 00:00:07'];
      const lines: string[] = [];
      const count = 50 + Math.floor(r() * 3000);
      const odd = r() < 0.3 ? 0.3 : 0.01;
      for (let i = 0; i < count; i++) {
        const fields = Array.from({ length: width }, () => words[Math.floor(r() * words.length)]!);
        let line = fields.join(d.delimiter);
        let eol = '\n';
        if (r() < odd) {
          const kind = Math.floor(r() * 6);
          if (kind === 0) line = `${d.quote}q${d.delimiter}x${d.quote}${d.delimiter}${line}`;
          else if (kind === 1) eol = '\r\n';
          else if (kind === 2) line = '';
          else if (kind === 3) line = fields.slice(1).join(d.delimiter);
          else if (kind === 4) line = `${line}${d.delimiter}extra`;
          else eol = '\r';
        }
        lines.push(line + eol);
      }
      const bytes = Buffer.from(lines.join('') + (r() < 0.5 ? 'tail' : ''));
      const capacity = 1 + Math.floor(r() * 600);
      const maxChunk = [7, 1000, 1 << 16, 1 << 20][trial % 4]!;
      const seed = Math.floor(r() * 1e9);
      const a = tokens(bytes, d, width, capacity, maxChunk, seed, true);
      const b = tokens(bytes, d, width, capacity, maxChunk, seed, false);
      expect(a).toEqual(b);
    }
    expect(counted.stop()).toBeGreaterThan(20000);
  });

  it('reads quoted fields in the WebAssembly kernel exactly as its own loop does', () => {
    // Records of exactly `width` fields, most of them quoted: delimiters, line ends and doubled
    // quotes inside, quotes in the middle of a field, text after a closing quote, empty quoted
    // fields, fields long enough to cross 16-byte blocks and the kernel's 64 KiB window; now and
    // then a record it leaves to the loop (CRLF, a lone CR, a wrong field count, an unterminated quote at the end).
    const r = rng(23);
    const counted = countKernelRecords();
    for (let trial = 0; trial < 48; trial++) {
      const d = DIALECTS[trial % DIALECTS.length]!;
      const q = d.quote;
      const width = 1 + (trial % 5);
      const maxChunk = [7, 1000, 1 << 16, 1 << 20][trial % 4]!;
      const field = (): string => {
        const x = r();
        const body = ['', 'a', 'é日本', `x${d.delimiter}y`, 'line\nbreak', `say ${q}${q}hi${q}${q}`, 'b'.repeat(Math.floor(r() * 40))][Math.floor(r() * 7)]!;
        const plainBody = body.replace(/\n/g, ' ').split(q).join('').split(d.delimiter).join('');
        if (x < 0.55) return `${q}${d.escape !== q ? body.split(`${q}${q}`).join(`${d.escape}${q}`) : body}${q}`;
        if (x < 0.6) return `ab${q}c${d.delimiter}d${q}e`;
        if (x < 0.65) return `${q}abc${q}tail`;
        if (x < 0.7) return `${q}${q}`;
        // Records that cross the window, where chunks are large (small ones rescan them per chunk).
        if (x < 0.701 && maxChunk >= 1 << 16) return `${q}${'long '.repeat(3000 + Math.floor(r() * 12000))}${d.delimiter}\n${q}`;
        return plainBody;
      };
      const lines: string[] = [];
      const count = 50 + Math.floor(r() * 1500);
      for (let i = 0; i < count; i++) {
        let line = Array.from({ length: width }, field).join(d.delimiter);
        let eol = '\n';
        const y = r();
        if (y < 0.01) eol = '\r\n';
        else if (y < 0.015) eol = '\r';
        else if (y < 0.02) line = `${line}${d.delimiter}extra`;
        else if (y < 0.025) line = '';
        lines.push(line + eol);
      }
      const tail = r() < 0.3 ? `${q}unterminated${d.delimiter}x` : r() < 0.5 ? 'tail' : '';
      const bytes = Buffer.from(lines.join('') + tail);
      const capacity = 1 + Math.floor(r() * 600);
      const seed = Math.floor(r() * 1e9);
      const tok = (plain: boolean): unknown => {
        try {
          return tokens(bytes, d, width, capacity, maxChunk, seed, plain);
        } catch (err) {
          return (err as { message?: string }).message;
        }
      };
      const a = tok(true);
      const b = tok(false);
      expect(a).toEqual(b);
    }
    expect(counted.stop()).toBeGreaterThan(5000);
  });

  it('counts lines through quoted newlines and keeps skip and empty records apart', () => {
    const sc = new CsvScanner({ delimiter: 44, quote: 34, escape: -1 }, 4, 16, 1 << 20);
    sc.skipRecords = 1;
    sc.push(Buffer.from('skip me\n\n"a\nb",1\r\n\r\nc,2\rd,3'));
    sc.finish();
    sc.scan(16);
    expect(sc.rows).toBe(3);
    expect(Array.from(sc.rowLines.subarray(0, 3))).toEqual([3, 6, 7]);
    expect([sc.fieldText(0), sc.fieldText(4), sc.fieldText(8)]).toEqual(['a\nb', 'c', 'd']);
  });

  it('refuses a record longer than its limit', () => {
    const sc = new CsvScanner({ delimiter: 44, quote: 34, escape: -1 }, 2, 4, 10);
    sc.push(Buffer.from('"0123456789abcdef'));
    expect(() => sc.scan(4)).toThrow(expect.objectContaining({ code: '54000' }));
  });
});

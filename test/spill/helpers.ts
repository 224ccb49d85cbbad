/**
 * Shared pieces of the spill tests: an ExecContext with settings (memory_limit, temp_directory, ...),
 * a seeded generator of batches covering every storage class (typed, text incl. long and non-BMP
 * strings, int8 beyond 2^53, numeric, interval, NULLs), and a temp directory per test.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Interval } from '../../src/common/interval.js';
import { Numeric } from '../../src/common/numeric.js';
import { T, type DataType, type Field, type Value } from '../../src/common/types.js';
import { BATCH_SIZE, ColumnBuilder, type Batch } from '../../src/common/column.js';
import { makeExecContext, type ExecContext } from '../../src/execution/context.js';
import type { EvalContext } from '../../src/functions/eval-context.js';

/** mulberry32: seeded, so a failing fuzz case can be replayed from its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function spillCtx(settings: Record<string, string>, signal?: AbortSignal, analyze = false): ExecContext {
  const ev: EvalContext = {
    timezone: 'UTC',
    statementTime: 0,
    transactionTime: 0,
    random: () => 0.5,
    setSeed: () => {},
    setting: (n) => settings[n.toLowerCase()],
  };
  return makeExecContext({ eval: ev, params: [], analyze, signal });
}

export function tempDir(): { dir: string; files(): string[]; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'quire-spill-test-'));
  return {
    dir,
    files(): string[] {
      const out: string[] = [];
      const walk = (d: string): void => {
        for (const e of readdirSync(d, { withFileTypes: true })) {
          out.push(join(d, e.name));
          if (e.isDirectory()) walk(join(d, e.name));
        }
      };
      walk(dir);
      return out;
    },
    remove(): void {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const FUZZ_FIELDS: Field[] = [
  { name: 'i4', type: T.int4 },
  { name: 'i8', type: T.int8 },
  { name: 'f8', type: T.float8 },
  { name: 't', type: T.text },
  { name: 'b', type: T.bool },
  { name: 'n', type: T.numeric },
  { name: 'iv', type: T.interval },
  { name: 'd', type: T.date },
  { name: 'long', type: T.text },
];

const WORDS = ['a', 'b', 'ab', 'abc', 'é', 'z', 'Z', '', 'a b', '\u{1F600}', '\uFFFD', 'zz', 'ß', '日本'];

function pick<X>(r: () => number, xs: readonly X[]): X {
  return xs[Math.floor(r() * xs.length)]!;
}

/** One value of the fuzz column `c` (few distinct values so that ties and NULL placement matter). */
export function fuzzValue(r: () => number, t: DataType, c: string): Value {
  if (r() < 0.12) return null;
  switch (c) {
    case 'i4':
      return Math.floor(r() * 20) - 10;
    case 'i8': {
      const x = r();
      if (x < 0.1) return 2n ** 60n + BigInt(Math.floor(r() * 5));
      if (x < 0.2) return -(2n ** 62n);
      return Math.floor(r() * 50) - 25;
    }
    case 'f8':
      return pick(r, [0, -0, 1.5, -1.5, NaN, Infinity, -Infinity, 1e-300, 3, Math.floor(r() * 10)]);
    case 't':
      return pick(r, WORDS) + pick(r, WORDS);
    case 'b':
      return r() < 0.5;
    case 'n':
      return pick(r, [Numeric.parse('1.50'), Numeric.parse('-2'), Numeric.parse('1.5'), Numeric.NaN, Numeric.parse('123456789012345678901234567890.123'), Numeric.POSITIVE_INFINITY]);
    case 'iv':
      return pick(r, [new Interval(1, 0, 0), new Interval(0, 30, 0), new Interval(0, 0, 5), new Interval(0, 0, -1)]);
    case 'd':
      return Math.floor(r() * 30) - 15;
    case 'long': {
      // Long strings with a shared prefix: the text-prefix fast path must fall back correctly.
      const len = Math.floor(r() * 3000);
      return 'x'.repeat(len) + pick(r, WORDS);
    }
  }
  void t;
  return null;
}

export function fuzzBatches(seed: number, rows: number, fields: readonly Field[] = FUZZ_FIELDS, batchRows = BATCH_SIZE): Batch[] {
  const r = rng(seed);
  const out: Batch[] = [];
  for (let s = 0; s < rows; s += batchRows) {
    const n = Math.min(batchRows, rows - s);
    const bs = fields.map((f) => new ColumnBuilder(f.type, n));
    for (let i = 0; i < n; i++) fields.forEach((f, c) => bs[c]!.push(fuzzValue(r, f.type, f.name)));
    out.push({ columns: bs.map((b) => b.finish()), length: n });
  }
  return out;
}

/** Row text that distinguishes every value shape (Numeric scale, -0, NaN, bigint). */
export function rowKey(row: readonly Value[]): string {
  return row
    .map((v) => {
      if (v === null) return 'N';
      if (typeof v === 'number') return Object.is(v, -0) ? 'n-0' : `n${v}`;
      if (typeof v === 'bigint') return `b${v}`;
      if (typeof v === 'string') return `s${JSON.stringify(v)}`;
      if (typeof v === 'boolean') return v ? 'T' : 'F';
      if (v instanceof Numeric) return `m${v.special}:${v.coef}:${v.scale}`;
      if (v instanceof Interval) return `i${v.months}:${v.days}:${v.micros}`;
      return String(v);
    })
    .join('|');
}

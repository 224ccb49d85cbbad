/**
 * Deterministic benchmark data: generated once by the parent process, written to .bench-data/ as raw
 * typed arrays, and read back by every engine's child process, so all engines load byte-identical
 * data and no child spends time (or RSS) on the PRNG.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';

/** Bump when the generator changes so stale caches in .bench-data/ are not reused. */
const GENERATOR_VERSION = 2;

export const G_GROUPS = 1000; // distinct t.g values: 0..999
export const P_PARTITIONS = 100_000; // t.p in 0..99999: ~rows/100,000 rows per value (10 at 1M rows)
export const K_RANGE = 10_000; // t.k in 0..9999, ~rows/10,000 duplicates per value
export const S_DISTINCT = 10_000; // distinct t.s strings
export const U_ROWS = 10_000; // dimension table u: g = 0..9999 (only 0..999 match t.g)
export const U_NAMES = 250; // distinct u.name values, so GROUP BY u.name merges several g's
const TS_BASE_S = Date.UTC(2020, 0, 1) / 1000;
const TS_SPAN_S = 3 * 365 * 86_400;

export interface Dataset {
  rows: number;
  seed: number;
  /** t.id: a shuffled permutation of 1..rows, so ORDER BY id needs a real sort. */
  id: Int32Array;
  g: Int32Array;
  v: Float64Array;
  k: Int32Array;
  /** t.s as an index into sDict (a dictionary keeps the arrays typed). */
  sIdx: Int32Array;
  sDict: string[];
  /** t.ts as epoch milliseconds, whole seconds only so every engine's precision represents it exactly. */
  tsMs: Float64Array;
  /** t.p: many small partitions (per-partition Top-N at 100k partitions). */
  p: Int32Array;
  uG: Int32Array;
  uName: string[];
  uW: Float64Array;
}

/** sfc32: small, fast, and identical on every platform (Math.random is neither seeded nor portable). */
export function makeRng(seed: number): { u32(): number; double(): number; int(n: number): number } {
  let a = 0x9e3779b9,
    b = 0x243f6a88,
    c = 0xb7e15162,
    d = seed >>> 0;
  const u32 = (): number => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 15; i++) u32(); // mix the seed in before first use
  // 53 random bits, so v has full double precision and ties in ORDER BY v are (practically) impossible
  const double = (): number => ((u32() >>> 5) * 67108864 + (u32() >>> 6)) / 9007199254740992;
  const int = (n: number): number => Math.floor(double() * n);
  return { u32, double, int };
}

export function generate(rows: number, seed = 42): Dataset {
  const rng = makeRng(seed);

  // Short strings of 3..10 lowercase letters; a Set keeps exactly S_DISTINCT distinct values.
  const seen = new Set<string>();
  const sDict: string[] = [];
  while (sDict.length < S_DISTINCT) {
    const len = 3 + rng.int(8);
    let s = '';
    for (let j = 0; j < len; j++) s += String.fromCharCode(97 + rng.int(26));
    if (!seen.has(s)) {
      seen.add(s);
      sDict.push(s);
    }
  }

  const id = new Int32Array(rows);
  for (let i = 0; i < rows; i++) id[i] = i + 1;
  for (let i = rows - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const tmp = id[i];
    id[i] = id[j];
    id[j] = tmp;
  }
  const g = new Int32Array(rows);
  const v = new Float64Array(rows);
  const k = new Int32Array(rows);
  const sIdx = new Int32Array(rows);
  const tsMs = new Float64Array(rows);
  for (let i = 0; i < rows; i++) {
    g[i] = rng.int(G_GROUPS);
    v[i] = rng.double() * 1000;
    k[i] = rng.int(K_RANGE);
    sIdx[i] = rng.int(S_DISTINCT);
    tsMs[i] = (TS_BASE_S + rng.int(TS_SPAN_S)) * 1000;
  }

  // p comes from its own stream, so adding it left every other column as it was.
  const pRng = makeRng(seed ^ 0x70a1c0de);
  const p = new Int32Array(rows);
  for (let i = 0; i < rows; i++) p[i] = pRng.int(P_PARTITIONS);

  const uG = new Int32Array(U_ROWS);
  const uW = new Float64Array(U_ROWS);
  const uName: string[] = new Array(U_ROWS);
  for (let i = 0; i < U_ROWS; i++) {
    uG[i] = i;
    uName[i] = `region_${String(i % U_NAMES).padStart(3, '0')}`;
    uW[i] = rng.double();
  }
  return { rows, seed, id, g, v, k, sIdx, sDict, tsMs, p, uG, uName, uW };
}

const TYPED = ['id', 'g', 'v', 'k', 'sIdx', 'tsMs', 'p', 'uG', 'uW'] as const;

/** Generate (or reuse) the dataset for (rows, seed) under baseDir; returns its directory. */
export function ensureDataset(baseDir: string, rows: number, seed: number): { dir: string; generatedMs: number | null } {
  const dir = join(baseDir, `v${GENERATOR_VERSION}-rows${rows}-seed${seed}`);
  if (existsSync(join(dir, 'meta.json'))) return { dir, generatedMs: null };
  const t0 = performance.now();
  const d = generate(rows, seed);
  const tmp = `${dir}.tmp-${process.pid}`;
  mkdirSync(tmp, { recursive: true });
  for (const name of TYPED) {
    const arr = d[name];
    writeFileSync(join(tmp, `${name}.bin`), new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength));
  }
  // meta.json last: its presence marks a complete dataset (the rename makes it atomic against parallel runs)
  writeFileSync(join(tmp, 'meta.json'), JSON.stringify({ rows, seed, sDict: d.sDict, uName: d.uName }));
  try {
    renameSync(tmp, dir);
  } catch {
    // another run won the race; its copy is identical
  }
  return { dir, generatedMs: performance.now() - t0 };
}

export function loadDataset(dir: string): Dataset {
  const meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as {
    rows: number;
    seed: number;
    sDict: string[];
    uName: string[];
  };
  const read = (name: string): Buffer => readFileSync(join(dir, `${name}.bin`));
  // Copy into fresh, aligned buffers: a Buffer from readFileSync may share a pooled, unaligned slab.
  const i32 = (name: string): Int32Array => {
    const b = read(name);
    return new Int32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
  };
  const f64 = (name: string): Float64Array => {
    const b = read(name);
    return new Float64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
  };
  return {
    rows: meta.rows,
    seed: meta.seed,
    id: i32('id'),
    g: i32('g'),
    v: f64('v'),
    k: i32('k'),
    sIdx: i32('sIdx'),
    sDict: meta.sDict,
    tsMs: f64('tsMs'),
    p: i32('p'),
    uG: i32('uG'),
    uName: meta.uName,
    uW: f64('uW'),
  };
}

/** 'YYYY-MM-DD HH:MM:SS', the canonical timestamp spelling used for storage in SQLite and for result checks. */
export function tsText(ms: number): string {
  const iso = new Date(ms).toISOString(); // always UTC, independent of TZ
  return iso.endsWith('.000Z') ? `${iso.slice(0, 10)} ${iso.slice(11, 19)}` : `${iso.slice(0, 10)} ${iso.slice(11, 23)}`;
}

export const T_COLUMNS = ['id', 'g', 'v', 'k', 's', 'ts', 'p'] as const;
export const U_COLUMNS = ['g', 'name', 'w'] as const;

/** Row i of t in canonical form (the form result checks compare). */
export function tRow(d: Dataset, i: number): unknown[] {
  return [d.id[i], d.g[i], d.v[i], d.k[i], d.sDict[d.sIdx[i]], tsText(d.tsMs[i]), d.p[i]];
}

/**
 * CSV text of t (or u). Numbers go through String(), which prints the shortest text that parses back to the
 * same double, so engines loading CSV get exactly the values the others get.
 */
export function* csvChunks(d: Dataset, table: 't' | 'u', chunkRows = 50_000): Generator<string> {
  if (table === 'u') {
    const lines: string[] = [];
    for (let i = 0; i < d.uG.length; i++) lines.push(`${d.uG[i]},${d.uName[i]},${d.uW[i]}`);
    yield lines.join('\n') + '\n';
    return;
  }
  for (let start = 0; start < d.rows; start += chunkRows) {
    const end = Math.min(d.rows, start + chunkRows);
    const lines: string[] = new Array(end - start);
    for (let i = start; i < end; i++) {
      // strings are [a-z]+, so no CSV quoting is needed
      lines[i - start] = `${d.id[i]},${d.g[i]},${d.v[i]},${d.k[i]},${d.sDict[d.sIdx[i]]},${tsText(d.tsMs[i])},${d.p[i]}`;
    }
    yield lines.join('\n') + '\n';
  }
}

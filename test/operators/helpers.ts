/**
 * Shared pieces of the operator tests: a source operator over hand-built batches, an ExecContext, a
 * seeded random data generator, PGlite loading, and value -> PostgreSQL text for the value shapes the
 * generators produce (so results of both engines can be compared as text).
 */
import type { PGlite } from '@electric-sql/pglite';
import { Numeric } from '../../src/common/numeric.js';
import { T, type DataType, type Field, type Value } from '../../src/common/types.js';
import { batchRows, ColumnBuilder, concatBatches, type Batch } from '../../src/common/column.js';
import { sortPermutation } from '../../src/physical/operators/sort.js';
import type { SortKey } from '../../src/physical/sort-key.js';
import { makeExecContext, type ExecContext } from '../../src/execution/context.js';
import type { EvalContext } from '../../src/functions/eval-context.js';
import { PhysicalOperator } from '../../src/physical/operator.js';
import { newPGlite } from '../common/pglite.js';

export class Source extends PhysicalOperator {
  readonly name = 'Source';
  executions = 0;
  pulled = 0;
  constructor(
    schema: Field[],
    readonly batches: Batch[],
  ) {
    super(schema);
  }
  children(): readonly PhysicalOperator[] {
    return [];
  }
  describe(): string {
    return `${this.batches.length} batches`;
  }
  protected async *run(): AsyncGenerator<Batch> {
    this.executions++;
    for (const b of this.batches) {
      this.pulled++;
      yield b;
    }
  }
}

export function makeCtx(): ExecContext {
  const ev: EvalContext = {
    timezone: 'UTC',
    statementTime: 0,
    transactionTime: 0,
    random: () => 0.5,
    setSeed: () => {},
    setting: () => undefined,
  };
  return makeExecContext({ eval: ev, params: [], analyze: false });
}

export async function collect(op: PhysicalOperator, ctx = makeCtx()): Promise<Value[][]> {
  const rows: Value[][] = [];
  for await (const b of op.execute(ctx)) for (const r of batchRows(b)) rows.push(r);
  return rows;
}

/** mulberry32 */
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

/** Rows into batches of random sizes (including empty batches) so operators see batch boundaries. */
export function toBatches(types: readonly DataType[], rows: readonly Value[][], r: () => number, maxBatch = 64): Batch[] {
  const out: Batch[] = [];
  let i = 0;
  while (i < rows.length) {
    const n = Math.floor(r() * maxBatch);
    const bs = types.map((t) => new ColumnBuilder(t));
    for (let k = 0; k < n && i < rows.length; k++, i++) for (let c = 0; c < types.length; c++) bs[c]!.push(rows[i]![c]!);
    const len = bs[0]!.length;
    out.push({ columns: bs.map((b) => b.finish()), length: len });
  }
  if (out.length === 0) out.push({ columns: types.map((t) => new ColumnBuilder(t).finish()), length: 0 });
  return out;
}

/**
 * `rows` in the stable order of `keys` (ties keep their input order): the order TopN keeps, and a Sort
 * of more than PG_TIE_ORDER_MAX_ROWS rows (smaller sorts put ties in PostgreSQL's order).
 */
export function stableSorted(fields: Field[], rows: Value[][], keys: readonly SortKey[]): Value[][] {
  const b = concatBatches(
    fields.map((f) => f.type),
    toBatches(
      fields.map((f) => f.type),
      rows,
      () => 0.999999,
      rows.length + 1,
    ),
  );
  return [...sortPermutation(b, keys)].map((i) => rows[i]!);
}

export function source(fields: Field[], rows: Value[][], r: () => number, maxBatch = 64): Source {
  return new Source(fields, toBatches(fields.map((f) => f.type), rows, r, maxBatch));
}

const TEXTS = ['', 'a', 'A', 'ab', 'abc', 'b', 'Z', 'é', 'ß', '日本', '\u{1F600}', '\u{1F600}x', '\uFF21', '\uE000', 'a\u{10000}', 'a\uFFFF', 'zz', 'a b', "o'k"];

export interface Gen {
  int4(nullP?: number, range?: number): Value;
  float8(nullP?: number): Value;
  text(nullP?: number): Value;
  int8(nullP?: number): Value;
  bool(nullP?: number): Value;
  numeric(nullP?: number): Value;
  pick<X>(xs: readonly X[]): X;
  r: () => number;
}

export function gen(seed: number): Gen {
  const r = rng(seed);
  const pick = <X>(xs: readonly X[]): X => xs[Math.floor(r() * xs.length)]!;
  return {
    r,
    pick,
    int4: (nullP = 0.1, range = 20) => (r() < nullP ? null : Math.floor(r() * range * 2) - range),
    float8: (nullP = 0.1) => {
      if (r() < nullP) return null;
      const x = r();
      if (x < 0.05) return NaN;
      if (x < 0.08) return Infinity;
      if (x < 0.11) return -Infinity;
      if (x < 0.14) return -0;
      return (Math.floor(r() * 80) - 40) / 4;
    },
    text: (nullP = 0.1) => (r() < nullP ? null : pick(TEXTS)),
    int8: (nullP = 0.1) => {
      if (r() < nullP) return null;
      const x = r();
      if (x < 0.1) return 9007199254740993n + BigInt(Math.floor(r() * 3));
      if (x < 0.2) return -9007199254740993n - BigInt(Math.floor(r() * 3));
      if (x < 0.3) return pick([9007199254740991, -9007199254740991, 0]);
      return Math.floor(r() * 20) - 10;
    },
    bool: (nullP = 0.1) => (r() < nullP ? null : r() < 0.5),
    numeric: (nullP = 0.1) => {
      if (r() < nullP) return null;
      if (r() < 0.05) return Numeric.NaN;
      return Numeric.of(BigInt(Math.floor(r() * 2000) - 1000), 2);
    },
  };
}

/** PostgreSQL text of a generated value (the generators avoid shapes where JS and PostgreSQL print differently). */
export function pgText(v: Value, t: DataType): string | null {
  if (v === null) return null;
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (typeof v === 'number') {
    if (Object.is(v, -0)) return t.name === 'float8' || t.name === 'float4' ? '-0' : '0';
    return String(v);
  }
  return String(v);
}

/** SQL literal for a generated value. */
export function sqlLit(v: Value, t: DataType): string {
  if (v === null) return 'NULL';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return `'${v.replace(/'/g, "''")}'`;
  if (typeof v === 'number' && (t.name === 'float8' || t.name === 'float4')) {
    if (Number.isNaN(v)) return "'NaN'::float8";
    if (v === Infinity) return "'Infinity'::float8";
    if (v === -Infinity) return "'-Infinity'::float8";
    if (Object.is(v, -0)) return "'-0'::float8";
  }
  if (v instanceof Numeric) return `'${v.toString()}'::numeric`;
  return String(v);
}

const SQL_TYPE: Partial<Record<string, string>> = {
  int4: 'int4',
  int8: 'int8',
  float8: 'float8',
  text: 'text COLLATE "C"',
  bool: 'bool',
  numeric: 'numeric',
};

export async function newPg(): Promise<PGlite> {
  const pg = newPGlite();
  await pg.waitReady;
  return pg;
}

export async function loadTable(pg: PGlite, name: string, fields: readonly Field[], rows: readonly Value[][]): Promise<void> {
  await pg.exec(`DROP TABLE IF EXISTS ${name}; CREATE TABLE ${name} (${fields.map((f) => `${f.name} ${SQL_TYPE[f.type.name]}`).join(', ')})`);
  for (let s = 0; s < rows.length; s += 500) {
    const chunk = rows.slice(s, s + 500);
    if (chunk.length === 0) break;
    await pg.exec(
      `INSERT INTO ${name} VALUES ${chunk.map((r) => `(${r.map((v, i) => sqlLit(v, fields[i]!.type)).join(', ')})`).join(', ')}`,
    );
  }
}

/** Runs a query and returns rows as PostgreSQL text. */
export async function pgRows(pg: PGlite, sql: string): Promise<(string | null)[][]> {
  const res = await pg.query<unknown[]>(sql, [], { rowMode: 'array', parsers: TEXT_PARSERS });
  return res.rows.map((r) => r.map((v) => (v === null || v === undefined ? null : String(v))));
}

const TEXT_PARSERS: Record<number, (v: string) => string> = {};
for (const oid of [16, 20, 21, 23, 25, 700, 701, 1043, 1700]) TEXT_PARSERS[oid] = (v: string) => v;

export function asText(rows: Value[][], types: readonly DataType[]): (string | null)[][] {
  return rows.map((r) => r.map((v, i) => pgText(v, types[i]!)));
}

/** Multiset comparison helper: sorted JSON lines. */
export function bag(rows: readonly (readonly (string | null)[])[]): string[] {
  return rows.map((r) => JSON.stringify(r)).sort();
}

export const F = (name: string, type: DataType): Field => ({ name, type });
export { T };

export const STD_FIELDS: Field[] = [
  F('id', T.int4),
  F('a', T.int4),
  F('b', T.float8),
  F('c', T.text),
  F('d', T.int8),
  F('e', T.bool),
  F('f', T.numeric),
];

/** Rows of STD_FIELDS; id is the row's input position (so "input order" is "id order"). */
export function stdRows(g: Gen, n: number, range = 20): Value[][] {
  const rows: Value[][] = [];
  for (let i = 0; i < n; i++) rows.push([i, g.int4(0.1, range), g.float8(), g.text(), g.int8(), g.bool(), g.numeric()]);
  return rows;
}

export interface KeySpec {
  col: number;
  desc: boolean;
  nullsFirst: boolean;
}

export function randomKeys(g: Gen, maxKeys = 3): KeySpec[] {
  const nk = 1 + Math.floor(g.r() * maxKeys);
  const cols = [1, 2, 3, 4, 5, 6];
  const out: KeySpec[] = [];
  for (let k = 0; k < nk; k++) {
    const i = Math.floor(g.r() * cols.length);
    const col = cols.splice(i, 1)[0]!;
    const desc = g.r() < 0.5;
    const nullsFirst = g.r() < 0.5 ? desc : g.r() < 0.5;
    out.push({ col, desc, nullsFirst });
  }
  return out;
}

export function orderBySql(keys: readonly KeySpec[], fields: readonly Field[]): string {
  return keys
    .map((k) => `${fields[k.col]!.name} ${k.desc ? 'DESC' : 'ASC'} NULLS ${k.nullsFirst ? 'FIRST' : 'LAST'}`)
    .join(', ');
}

/** Canonical text of a row's key values, with sort-equal values (-0 and 0) spelled alike. */
export function keyText(row: readonly Value[], keys: readonly KeySpec[], fields: readonly Field[]): string {
  return JSON.stringify(
    keys.map((k) => {
      const v = row[k.col]!;
      if (typeof v === 'number' && v === 0) return '0';
      return pgText(v, fields[k.col]!.type);
    }),
  );
}

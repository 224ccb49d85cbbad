/**
 * ColumnBuilder past one chunk (BUILDER_CHUNK_ROWS): values, NULLs, int8 past 2^53 and text keep their
 * order and content across chunk boundaries, whether read whole (finish), in slices (finishChunked) or
 * as chunks; and GROUP BY / ordered aggregates with more groups or buffered rows than a chunk answer as
 * PostgreSQL does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PGlite } from '@electric-sql/pglite';
import { BUILDER_CHUNK_ROWS, ColumnBuilder, concatBatches, getValue, type Column } from '../../src/common/column.js';
import { T, type DataType, type Value } from '../../src/common/types.js';
import { Database } from '../../src/index.js';
import { startPg } from './pg-helper.js';

const N = BUILDER_CHUNK_ROWS * 2 + 1234;

function values(c: Column, n: number): Value[] {
  const out: Value[] = [];
  for (let i = 0; i < n; i++) out.push(getValue(c, i));
  return out;
}

function build(t: DataType, gen: (i: number) => Value, capacity?: number): { b: ColumnBuilder; expected: Value[] } {
  const b = new ColumnBuilder(t, capacity);
  const expected: Value[] = [];
  for (let i = 0; i < N; i++) {
    const v = gen(i);
    expected.push(v);
    // Alternate the two entry points so both cross the boundaries.
    if (i % 3 === 0 && v !== null && typeof v !== 'bigint') {
      const one = new ColumnBuilder(t, 1);
      one.push(v);
      b.pushFrom(one.finish(), 0);
    } else b.push(v);
  }
  return { b, expected };
}

const cases: [string, DataType, (i: number) => Value][] = [
  ['int4 with NULLs', T.int4, (i) => (i % 7 === 0 ? null : i * 3 - 5)],
  ['float8 without NULLs', T.float8, (i) => i / 4],
  ['bool with NULLs', T.bool, (i) => (i % 5 === 0 ? null : i % 2 === 0)],
  ['text with NULLs and multibyte', T.text, (i) => (i % 11 === 0 ? null : `ключ-${i}-é`)],
  // A value past 2^53 in the second chunk turns only that chunk into a plain array.
  ['int8 widening mid-way', T.int8, (i) => (i === BUILDER_CHUNK_ROWS + 17 ? 2n ** 60n + BigInt(i) : i % 13 === 0 ? null : i)],
  ['NULLs only at the end', T.int4, (i) => (i >= N - 3 ? null : i)],
];

describe('ColumnBuilder across chunks', () => {
  for (const [name, t, gen] of cases) {
    it(`${name}: finish, slices and chunks agree with what was pushed`, () => {
      const { b, expected } = build(t, gen);
      expect(b.length).toBe(N);
      const chunks = b.finishChunks();
      expect(chunks.length).toBe(3);
      expect(chunks.every((c, k) => k === chunks.length - 1 || c.length === BUILDER_CHUNK_ROWS)).toBe(true);
      expect(values(concatBatches([t], chunks).columns[0]!, N)).toEqual(expected);
      const chunked = b.finishChunked();
      for (const [s, e] of [
        [0, 10],
        [BUILDER_CHUNK_ROWS - 5, BUILDER_CHUNK_ROWS + 5],
        [BUILDER_CHUNK_ROWS, BUILDER_CHUNK_ROWS + 4096],
        [N - 100, N],
        [0, N],
        [7, 7],
      ] as const) {
        expect(values(chunked.slice(s, e), e - s)).toEqual(expected.slice(s, e));
      }
      expect(values(b.finish(), N)).toEqual(expected);
    });
  }

  it('a builder sized up front beyond a chunk fills it before starting another', () => {
    const { b, expected } = build(T.float8, (i) => (i % 9 === 0 ? null : -i), N - 10);
    expect(b.finishChunks().length).toBe(2);
    expect(values(b.finish(), N)).toEqual(expected);
  });
});

describe('aggregates over more groups and buffered rows than a chunk, against PostgreSQL', () => {
  let pg: PGlite;
  let db: Database;
  const setup = [
    `create table t as select i as id, case when i % 17 = 0 then null else (i * 7919) % ${N} end as k,
       case when i % 5 = 0 then null else 'v' || (i % 1000) || 'ü' end as s, (i % 97)::float8 as v
     from generate_series(1, ${N + 5000}) i`,
  ];
  beforeAll(async () => {
    pg = await startPg();
    db = await Database.create();
    for (const q of setup) {
      await pg.query(q);
      await db.query(q);
    }
  }, 120_000);
  afterAll(async () => {
    await pg?.close();
    await db?.close();
  });

  const queries = [
    // Group keys (one and two columns) past a chunk, read back in output batches.
    'select count(*), sum(c), count(k), sum(k) from (select k, count(*) as c from t group by k) x',
    'select md5(string_agg(k::text || s, \',\' order by k, s)) from (select k, s, count(*) from t group by k, s) x',
    'select k, s, count(*) from t group by k, s order by k nulls first, s nulls first limit 20 offset 70000',
    // Ordered and DISTINCT inputs buffered past a chunk, then concatenated with yields.
    "select id % 3, md5(string_agg(s, ',' order by v desc, id)) from t group by 1 order by 1",
    'select count(distinct s), count(distinct k) from t',
  ];
  for (const q of queries) {
    it(q, async () => {
      const want = (await pg.query<Record<string, unknown>>(q, [], { rowMode: 'array' } as never)).rows as unknown as unknown[][];
      const got = (await db.query(q)).rows;
      expect(got.map((r) => r.map((v) => (v === null ? null : String(v))))).toEqual(want.map((r) => r.map((v) => (v === null ? null : String(v)))));
    }, 120_000);
  }
});

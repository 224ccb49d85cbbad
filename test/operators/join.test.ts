import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Value } from '../../src/common/types.js';
import { batchRows } from '../../src/common/column.js';
import type { CompiledPredicate } from '../../src/physical/compiled.js';
import { HashJoin, type JoinType } from '../../src/physical/operators/hash-join.js';
import { NestedLoopJoin } from '../../src/physical/operators/nested-loop-join.js';
import { compareText } from '../../src/physical/sort-key.js';
import { bag, collect, F, gen, loadTable, newPg, pgRows, source, T } from './helpers.js';

const FIELDS = [F('id', T.int4), F('a', T.int4), F('b', T.float8), F('c', T.text), F('d', T.int8)];
const NL = FIELDS.length;
let pg: PGlite;
let L: Value[][];
let R: Value[][];

function rows(seed: number, n: number): Value[][] {
  const g = gen(seed);
  const out: Value[][] = [];
  for (let i = 0; i < n; i++) out.push([i, g.int4(0.15, 6), g.float8(0.15), g.text(0.15), g.int8(0.15)]);
  return out;
}

beforeAll(async () => {
  pg = await newPg();
  L = rows(41, 220);
  R = rows(42, 180);
  await loadTable(pg, 'l', FIELDS, L);
  await loadTable(pg, 'r', FIELDS, R);
});
afterAll(async () => {
  await pg.close();
});

/** A predicate over the combined row (left columns then right columns); null counts as false. */
function pred(f: (row: Value[]) => boolean | null): CompiledPredicate {
  return (batch) => {
    const rs = batchRows(batch);
    const sel = new Uint32Array(rs.length);
    let n = 0;
    rs.forEach((r, i) => {
      if (f(r) === true) sel[n++] = i;
    });
    return { sel, n };
  };
}

const cmpNum = (x: Value, y: Value, f: (a: number, b: number) => boolean): boolean | null =>
  x === null || y === null ? null : f(x as number, y as number);

interface Residual {
  sql: string;
  fn: CompiledPredicate;
}
const RESIDUALS: (Residual | null)[] = [
  null,
  { sql: '(l.id + r.id) % 2 = 1', fn: pred((r) => ((r[0] as number) + (r[NL] as number)) % 2 === 1) },
  { sql: 'l.b < r.b', fn: pred((r) => cmpNum(r[2]!, r[NL + 2]!, (a, b) => a < b || (!Number.isNaN(a) && Number.isNaN(b)))) },
];

function sqlFor(type: JoinType, cond: string): string {
  switch (type) {
    case 'semi':
      return `SELECT l.id FROM l WHERE EXISTS (SELECT 1 FROM r WHERE ${cond})`;
    case 'anti':
      return `SELECT l.id FROM l WHERE NOT EXISTS (SELECT 1 FROM r WHERE ${cond})`;
    default:
      return `SELECT l.id, r.id FROM l ${type.toUpperCase()} JOIN r ON ${cond}`;
  }
}

function ids(type: JoinType, out: Value[][]): (string | null)[][] {
  return out.map((r) =>
    type === 'semi' || type === 'anti' ? [String(r[0])] : [r[0] === null ? null : String(r[0]), r[NL] === null ? null : String(r[NL])],
  );
}

const TYPES: JoinType[] = ['inner', 'left', 'right', 'full', 'semi', 'anti'];
const KEYS: { cols: number[]; names: string[] }[] = [
  { cols: [1], names: ['a'] },
  { cols: [2], names: ['b'] },
  { cols: [3], names: ['c'] },
  { cols: [4], names: ['d'] },
  { cols: [1, 3], names: ['a', 'c'] },
];

describe('HashJoin vs PostgreSQL', () => {
  it('every join type, key shape and residual', async () => {
    let seed = 0;
    for (const keys of KEYS) {
      for (const residual of RESIDUALS) {
        for (const type of TYPES) {
          const g = gen(seed++);
          const op = new HashJoin(
            source(FIELDS, L, g.r, 50),
            source(FIELDS, R, g.r, 50),
            type,
            keys.cols,
            keys.cols,
            residual?.fn ?? null,
          );
          const cond = keys.names.map((k) => `l.${k} = r.${k}`).join(' AND ') + (residual ? ` AND ${residual.sql}` : '');
          const label = `${type} ${cond}`;
          expect(bag(ids(type, await collect(op))), label).toEqual(bag(await pgRows(pg, sqlFor(type, cond))));
        }
      }
    }
  });

  it('empty sides', async () => {
    for (const type of TYPES) {
      for (const [lr, rr] of [
        [L, []],
        [[], R],
        [[], []],
      ] as const) {
        const op = new HashJoin(source(FIELDS, lr as Value[][], gen(1).r), source(FIELDS, rr as Value[][], gen(2).r), type, [1], [1]);
        const out = await collect(op);
        const expected =
          type === 'inner' || type === 'semi' ? 0 : type === 'right' ? rr.length : type === 'full' ? lr.length + rr.length : lr.length;
        expect(out.length, `${type} ${lr.length}x${rr.length}`).toBe(type === 'anti' && rr.length > 0 ? 0 : expected);
      }
    }
  });

  it('large fan-out crosses output batch boundaries', async () => {
    const many = Array.from({ length: 300 }, (_, i) => [i, 1, 0, 'x', 0] as Value[]);
    const op = new HashJoin(source(FIELDS, many, gen(1).r), source(FIELDS, many, gen(2).r), 'inner', [1], [1]);
    let n = 0;
    for await (const b of op.execute((await import('./helpers.js')).makeCtx())) {
      expect(b.length).toBeLessThanOrEqual(4096);
      n += b.length;
    }
    expect(n).toBe(90000);
  });

  it('builds of tens of thousands of rows: int and text keys with duplicates and NULLs, as PostgreSQL', async () => {
    const { Database } = await import('../../src/index.js');
    const db = await Database.create();
    const setup = [
      "CREATE TABLE jb AS SELECT i AS id, CASE WHEN i % 11 = 0 THEN NULL ELSE i % 7001 END AS k, CASE WHEN i % 13 = 0 THEN NULL ELSE 'é' || (i % 9001) END AS t FROM generate_series(1, 30000) i",
      "CREATE TABLE jp AS SELECT i AS id, CASE WHEN i % 17 = 0 THEN NULL ELSE i % 8000 END AS k, CASE WHEN i % 19 = 0 THEN NULL ELSE 'é' || (i % 10000) END AS t FROM generate_series(1, 20000) i",
    ];
    for (const q of setup) {
      await db.query(q);
      await pg.query(q);
    }
    const queries = [
      'SELECT count(*) AS n, sum(jp.id) AS a, sum(jb.id) AS b FROM jp JOIN jb ON jp.t = jb.t',
      'SELECT count(*) AS n, sum(jp.id) AS a, sum(jb.id) AS b FROM jp JOIN jb ON jp.k = jb.k',
      'SELECT count(*) AS n, count(jb.id) AS m FROM jp LEFT JOIN jb ON jp.t = jb.t',
      'SELECT count(*) AS n FROM jp WHERE EXISTS (SELECT 1 FROM jb WHERE jb.t = jp.t AND jb.k = jp.k % 7001)',
    ];
    for (const q of queries) {
      const ours = (await db.query(q)).rows.map((r) => r.map(String));
      const theirs = (await pg.query<Record<string, unknown>>(q)).rows.map((r) => Object.values(r).map(String));
      expect(ours, q).toEqual(theirs);
    }
  });
});

describe('NestedLoopJoin vs PostgreSQL', () => {
  const CONDS: { sql: string; fn: CompiledPredicate | null }[] = [
    { sql: 'true', fn: null },
    { sql: 'l.a < r.a', fn: pred((r) => cmpNum(r[1]!, r[NL + 1]!, (a, b) => a < b)) },
    {
      sql: 'l.a = r.a OR l.c < r.c',
      fn: pred((r) => {
        const x = cmpNum(r[1]!, r[NL + 1]!, (a, b) => a === b);
        if (x === true) return true;
        const y = r[3] === null || r[NL + 3] === null ? null : compareText(r[3] as string, r[NL + 3] as string) < 0;
        return y === true ? true : x === null || y === null ? null : false;
      }),
    },
  ];
  it('every join type and condition', async () => {
    let seed = 0;
    const Ls = L.slice(0, 70);
    const Rs = R.slice(0, 60);
    await loadTable(pg, 'l', FIELDS, Ls);
    await loadTable(pg, 'r', FIELDS, Rs);
    try {
      for (const cond of CONDS) {
        for (const type of TYPES) {
          const g = gen(seed++);
          const op = new NestedLoopJoin(source(FIELDS, Ls, g.r, 20), source(FIELDS, Rs, g.r, 20), type, cond.fn);
          // PostgreSQL runs FULL JOIN only on hashable/mergeable conditions: spell it as LEFT JOIN plus the unmatched right rows.
          const sql =
            type === 'full'
              ? `${sqlFor('left', cond.sql)} UNION ALL SELECT NULL, r.id FROM r WHERE NOT EXISTS (SELECT 1 FROM l WHERE ${cond.sql})`
              : sqlFor(type, cond.sql);
          expect(bag(ids(type, await collect(op))), `${type} ${cond.sql}`).toEqual(bag(await pgRows(pg, sql)));
        }
      }
    } finally {
      await loadTable(pg, 'l', FIELDS, L);
      await loadTable(pg, 'r', FIELDS, R);
    }
  });
});

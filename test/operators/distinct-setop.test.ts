import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Field, Value } from '../../src/common/types.js';
import { Distinct } from '../../src/physical/operators/distinct.js';
import { DistinctOn } from '../../src/physical/operators/distinct-on.js';
import { SetOp, type SetOpKind } from '../../src/physical/operators/set-op.js';
import { Sort } from '../../src/physical/operators/sort.js';
import { asText, bag, collect, F, gen, loadTable, newPg, orderBySql, pgRows, randomKeys, source, STD_FIELDS, stdRows, T } from './helpers.js';

let pg: PGlite;
let rows: Value[][];

beforeAll(async () => {
  pg = await newPg();
  rows = stdRows(gen(51), 400, 4);
  await loadTable(pg, 't', STD_FIELDS, rows);
});
afterAll(async () => {
  await pg.close();
});

/** -0 and 0 are one value to DISTINCT; which one is printed is unspecified. */
const norm = (rs: (string | null)[][]) => rs.map((r) => r.map((v) => (v === '-0' ? '0' : v)));

function project(rs: Value[][], cols: number[]): Value[][] {
  return rs.map((r) => cols.map((c) => r[c]!));
}

describe('Distinct', () => {
  it('matches SELECT DISTINCT on column subsets (NULLs equal, NaN = NaN, -0 = 0, bigints)', async () => {
    const subsets = [[1], [2], [3], [4], [5], [6], [1, 3], [2, 5], [1, 2, 3, 4, 5], [3, 4, 6]];
    for (const cols of subsets) {
      const fields: Field[] = cols.map((c) => STD_FIELDS[c]!);
      const op = new Distinct(source(fields, project(rows, cols), gen(cols.length).r, 37));
      const out = await collect(op);
      const theirs = await pgRows(pg, `SELECT DISTINCT ${fields.map((f) => f.name).join(', ')} FROM t`);
      expect(bag(norm(asText(out, fields.map((f) => f.type)))), cols.join(',')).toEqual(bag(norm(theirs)));
    }
  });
});

describe('DistinctOn', () => {
  it('keeps the first row of each key run of a sorted input', async () => {
    const g = gen(52);
    for (let t = 0; t < 25; t++) {
      const keys = randomKeys(g, 3);
      const order = [
        ...keys.map((k) => ({ col: k.col, type: STD_FIELDS[k.col]!.type, desc: k.desc, nullsFirst: k.nullsFirst })),
        { col: 0, type: T.int4, desc: true, nullsFirst: false },
      ];
      const op = new DistinctOn(new Sort(source(STD_FIELDS, rows, g.r, 16), order), keys.map((k) => k.col));
      const out = (await collect(op)).map((r) => r[0]);
      const on = keys.map((k) => STD_FIELDS[k.col]!.name).join(', ');
      const theirs = await pgRows(pg, `SELECT DISTINCT ON (${on}) id FROM t ORDER BY ${orderBySql(keys, STD_FIELDS)}, id DESC`);
      expect(out, on).toEqual(theirs.map((r) => Number(r[0])));
    }
  });
});

describe('SetOp', () => {
  const FIELDS = [F('a', T.int4), F('c', T.text), F('b', T.float8)];
  function side(seed: number, n: number): Value[][] {
    const g = gen(seed);
    return Array.from({ length: n }, () => [g.int4(0.2, 2), g.pick([null, 'x', 'y', '\u{1F600}']), g.pick([null, 1.5, NaN, 0, -0])]);
  }
  it('all six operations with multiset semantics, including empty sides', async () => {
    for (const [ln, rn, seed] of [
      [150, 120, 1],
      [0, 50, 2],
      [50, 0, 3],
      [0, 0, 4],
      [300, 20, 5],
    ] as const) {
      const L = side(seed * 10, ln);
      const R = side(seed * 10 + 1, rn);
      await loadTable(pg, 'sl', FIELDS, L);
      await loadTable(pg, 'sr', FIELDS, R);
      for (const kind of ['union', 'intersect', 'except'] as SetOpKind[]) {
        for (const all of [false, true]) {
          const op = new SetOp(kind, all, source(FIELDS, L, gen(seed).r, 30), source(FIELDS, R, gen(seed + 1).r, 30));
          const out = await collect(op);
          const sql = `SELECT a, c, b FROM sl ${kind.toUpperCase()}${all ? ' ALL' : ''} SELECT a, c, b FROM sr`;
          expect(bag(norm(asText(out, FIELDS.map((f) => f.type)))), `${sql} (${ln}, ${rn})`).toEqual(bag(norm(await pgRows(pg, sql))));
        }
      }
    }
  });
});

describe('equality of non-canonical representations', () => {
  it('bpchar ignores trailing blanks; numeric 1.0 = 1.00; interval 1 mon = 30 days', async () => {
    const { Numeric } = await import('../../src/common/numeric.js');
    const { Interval } = await import('../../src/common/interval.js');
    const { HashJoin } = await import('../../src/physical/operators/hash-join.js');
    const fields = [F('p', T.bpchar), F('n', T.numeric), F('i', T.interval)];
    const vals: Value[][] = [
      ['a', Numeric.of(10n, 1), new Interval(1, 0, 0)],
      ['a  ', Numeric.of(100n, 2), new Interval(0, 30, 0)],
      [null, null, null],
      [null, null, null],
      ['b', Numeric.of(2n, 0), new Interval(0, 0, 1)],
    ];
    expect((await collect(new Distinct(source(fields, vals, gen(1).r)))).length).toBe(3);
    for (const col of [0, 1, 2]) {
      const d = await collect(new Distinct(source([fields[col]!], project(vals, [col]), gen(2).r)));
      expect(d.length).toBe(3);
      const j = await collect(new HashJoin(source(fields, vals, gen(3).r), source(fields, vals, gen(4).r), 'inner', [col], [col]));
      expect(j.length).toBe(5); // 2x2 for the equal pair, 1 for 'b', NULLs never match
    }
    const s = await collect(new SetOp('intersect', true, source(fields, vals, gen(5).r), source(fields, vals.slice(1), gen(6).r)));
    expect(s.length).toBe(4); // a-row min(2, 1) + NULL row min(2, 2) + b-row min(1, 1)
  });
});

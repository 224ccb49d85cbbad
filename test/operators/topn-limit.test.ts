import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Value } from '../../src/common/types.js';
import { Limit } from '../../src/physical/operators/limit.js';
import { Sort } from '../../src/physical/operators/sort.js';
import { TopN, type TopNStrategy } from '../../src/physical/operators/topn.js';
import { collect, gen, keyText, loadTable, newPg, orderBySql, pgRows, randomKeys, source, Source, stableSorted, STD_FIELDS, stdRows, toBatches, type KeySpec } from './helpers.js';

let pg: PGlite;
const tables = new Map<string, Value[][]>();

beforeAll(async () => {
  pg = await newPg();
  for (const [name, n, seed, range] of [
    ['small', 300, 11, 10],
    ['big', 12000, 12, 3],
  ] as const) {
    const rows = stdRows(gen(seed), n, range);
    tables.set(name, rows);
    await loadTable(pg, name, STD_FIELDS, rows);
  }
});
afterAll(async () => {
  await pg.close();
});

const sk = (keys: KeySpec[]) => keys.map((k) => ({ col: k.col, type: STD_FIELDS[k.col]!.type, desc: k.desc, nullsFirst: k.nullsFirst }));

async function pgIds(table: string, keys: KeySpec[], limit: number, offset: number, ties: boolean, extra = ''): Promise<number[]> {
  const sql = `SELECT id FROM ${table} ORDER BY ${orderBySql(keys, STD_FIELDS)}${extra} OFFSET ${offset} FETCH FIRST ${limit} ROWS ${ties ? 'WITH TIES' : 'ONLY'}`;
  return (await pgRows(pg, sql)).map((r) => Number(r[0]));
}

async function checkTopN(table: string, keys: KeySpec[], limit: number, offset: number, ties: boolean, strategy: TopNStrategy, seed: number) {
  const rows = tables.get(table)!;
  const g = gen(seed);
  const op = new TopN(source(STD_FIELDS, rows, g.r, 200), sk(keys), limit, offset, ties, strategy);
  const out = await collect(op);
  const theirs = await pgIds(table, keys, limit, offset, ties);
  const label = `${table} ${orderBySql(keys, STD_FIELDS)} limit ${limit} offset ${offset} ${ties ? 'ties' : ''} ${strategy}`;
  expect(out.map((r) => keyText(r, keys, STD_FIELDS)), label).toEqual(theirs.map((id) => keyText(rows[id]!, keys, STD_FIELDS)));
  if (ties && offset === 0) expect(out.map((r) => r[0]).sort(), label).toEqual([...theirs].sort());
  // Deterministic: exactly the stable full sort's rows [offset, offset + limit (+ ties)).
  const sorted = stableSorted(STD_FIELDS, rows, sk(keys));
  expect(out.map((r) => r[0]), label).toEqual(sorted.slice(offset, offset + out.length).map((r) => r[0]));
}

describe('TopN vs PostgreSQL', () => {
  it('heap and select, limits and offsets around the input size, with and without ties', async () => {
    const g = gen(21);
    let seed = 0;
    for (const strategy of ['heap', 'select'] as const) {
      for (const [limit, offset] of [
        [1, 0],
        [5, 0],
        [17, 3],
        [100, 150],
        [299, 0],
        [300, 0],
        [1000, 0],
        [10, 295],
        [10, 300],
        [10, 5000],
        [0, 0],
        [0, 10],
      ] as const) {
        for (const ties of [false, true]) await checkTopN('small', randomKeys(g), limit, offset, ties, strategy, seed++);
      }
    }
  });

  it('select strategy compaction over many rows with heavy ties', async () => {
    const g = gen(22);
    let seed = 100;
    for (const [limit, offset] of [
      [10, 0],
      [10, 500],
      [3, 2],
      [1500, 100],
      [7000, 3000],
    ] as const) {
      for (const ties of [false, true]) {
        const keys = randomKeys(g, 2);
        await checkTopN('big', keys, limit, offset, ties, 'select', seed++);
        await checkTopN('big', keys, limit, offset, ties, 'heap', seed++);
      }
    }
  });

  it('ties at the boundary: a single all-equal key', async () => {
    const keys: KeySpec[] = [{ col: 5, desc: false, nullsFirst: true }]; // bool: 3 distinct values
    for (const strategy of ['heap', 'select'] as const) {
      for (const [limit, offset] of [
        [1, 0],
        [2, 0],
        [40, 0],
        [1, 100],
        [5, 250],
      ] as const) {
        await checkTopN('small', keys, limit, offset, true, strategy, limit);
        await checkTopN('small', keys, limit, offset, false, strategy, limit);
      }
    }
  });

  it('describe', () => {
    const s = source(STD_FIELDS, [], gen(1).r);
    expect(new TopN(s, sk([{ col: 1, desc: true, nullsFirst: true }]), 10, 5, true).describe()).toBe(
      'keys: [a DESC], limit: 10, offset: 5, with ties, strategy: heap',
    );
    expect(new TopN(s, sk([{ col: 3, desc: false, nullsFirst: false }]), 10, 500000).describe()).toBe(
      'keys: [c ASC], limit: 10, offset: 500000, strategy: select',
    );
  });
});

describe('Limit', () => {
  it('matches PostgreSQL over a sorted input', async () => {
    const g = gen(31);
    const rows = tables.get('small')!;
    for (const [count, offset] of [
      [5, 0],
      [0, 0],
      [null, 10],
      [10, null],
      [50, 290],
      [10, 300],
      [10, 1000],
      [1000, 0],
      [64, 64],
    ] as const) {
      const keys = randomKeys(g, 2);
      const order = [...sk(keys), { col: 0, type: STD_FIELDS[0]!.type, desc: false, nullsFirst: false }];
      const op = new Limit(new Sort(source(STD_FIELDS, rows, g.r, 64), order), count, offset);
      const out = (await collect(op)).map((r) => r[0]);
      const sql = `SELECT id FROM small ORDER BY ${orderBySql(keys, STD_FIELDS)}, id${count === null ? '' : ` LIMIT ${count}`}${offset === null ? '' : ` OFFSET ${offset}`}`;
      expect(out).toEqual((await pgRows(pg, sql)).map((r) => Number(r[0])));
    }
  });

  it('WITH TIES over sorted input, peers spanning batch boundaries', async () => {
    const g = gen(32);
    const rows = tables.get('small')!;
    for (const [count, offset] of [
      [1, 0],
      [7, 0],
      [30, 5],
      [299, 0],
      [300, 0],
      [5, 298],
      [5, 400],
      [0, 0],
    ] as const) {
      const keys = randomKeys(g, 2);
      // The stable order TopN keeps, re-batched into tiny batches so peer runs cross batch boundaries.
      const sortedRows = stableSorted(STD_FIELDS, rows, sk(keys));
      const small = new Source(STD_FIELDS, toBatches(STD_FIELDS.map((f) => f.type), sortedRows, g.r, 4));
      const op = new Limit(small, count, offset, keys.map((k) => k.col));
      const out = await collect(op);
      const theirs = await pgIds('small', keys, count, offset, true);
      expect(out.map((r) => keyText(r, keys, STD_FIELDS))).toEqual(theirs.map((id) => keyText(rows[id]!, keys, STD_FIELDS)));
      const topn = await collect(new TopN(source(STD_FIELDS, rows, g.r), sk(keys), count, offset, true));
      expect(out.map((r) => r[0])).toEqual(topn.map((r) => r[0]));
    }
  });

  it('stops pulling from its child once done', async () => {
    const rows = tables.get('big')!;
    const s = source(STD_FIELDS, rows, gen(3).r, 100);
    expect(s.batches.length).toBeGreaterThan(100);
    const out = await collect(new Limit(s, 3, 2));
    expect(out.map((r) => r[0])).toEqual([2, 3, 4]);
    expect(s.pulled).toBeLessThanOrEqual(3);
    const s0 = source(STD_FIELDS, rows, gen(3).r, 100);
    await collect(new Limit(s0, 0, 0));
    expect(s0.pulled).toBe(0);
  });
});

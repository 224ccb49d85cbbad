/**
 * HashAggregate against PostgreSQL (PGlite): the same random data in both, the same aggregates, results
 * compared as PostgreSQL text output, result types compared by OID.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PGlite } from '@electric-sql/pglite';
import { Interval } from '../../src/common/interval.js';
import { Numeric } from '../../src/common/numeric.js';
import { T, TYPE_OID, type DataType, type Value } from '../../src/common/types.js';
import { HashAggregate, type HashAggSpec } from '../../src/physical/operators/hash-aggregate.js';
import { rng, startPg } from '../common/pg-helper.js';
import { BatchSource, collect, fmt, loadTable, rawParsers, resolve, toBatches } from './helpers.js';

let pg: PGlite;
let parsers: Record<number, (v: string) => string>;

const rand = rng(20261202);
const pick = <V>(xs: readonly V[]): V => xs[Math.floor(rand() * xs.length)]!;
const chance = (p: number): boolean => rand() < p;
const int = (lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));

function int8Val(): Value {
  const r = rand();
  if (r < 0.4) return int(-1000, 1000);
  if (r < 0.6) return int(-2147483648, 2147483647) * int(1, 1000);
  // Around ±2^53: both sides of the safe-integer boundary.
  if (r < 0.8) {
    const b = 2n ** 53n + BigInt(int(-3, 3));
    const v = chance(0.5) ? b : -b;
    return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
  }
  // Near ±2^63.
  return chance(0.5) ? 2n ** 63n - 1n - BigInt(int(0, 50)) : -(2n ** 63n) + BigInt(int(0, 50));
}

function float8Val(): Value {
  const r = rand();
  if (r < 0.02) return NaN;
  if (r < 0.03) return Infinity;
  if (r < 0.04) return -Infinity;
  if (r < 0.06) return -0;
  if (r < 0.5) return int(-100, 100) / 4;
  return (rand() - 0.5) * 10 ** int(-20, 100);
}

function float4Val(): Value {
  const r = rand();
  if (r < 0.02) return NaN;
  if (r < 0.03) return Infinity;
  if (r < 0.04) return -Infinity;
  if (r < 0.5) return Math.fround(int(-100, 100) / 8);
  return Math.fround((rand() - 0.5) * 10 ** int(-10, 30));
}

function numericVal(): Value {
  const r = rand();
  if (r < 0.01) return Numeric.NaN;
  if (r < 0.015) return Numeric.POSITIVE_INFINITY;
  if (r < 0.02) return Numeric.NEGATIVE_INFINITY;
  const digits = int(1, 30);
  let s = '';
  for (let i = 0; i < digits; i++) s += String(int(0, 9));
  const scale = int(0, Math.min(digits, 12));
  return Numeric.of(BigInt(s) * (chance(0.4) ? -1n : 1n), scale);
}

const LETTERS = 'abcxyz';
function textVal(): Value {
  const n = int(0, 4);
  let s = '';
  for (let i = 0; i < n; i++) s += LETTERS[int(0, LETTERS.length - 1)];
  return s;
}

interface Col {
  name: string;
  type: DataType;
  gen: () => Value;
  nullP: number;
}

let nextId = 0;
const COLS: Col[] = [
  { name: 'id', type: T.int4, gen: () => nextId++, nullP: 0 },
  { name: 'g', type: T.int4, gen: () => int(0, 12), nullP: 0.04 },
  // ~10 rows per group: NaN/Infinity land in some groups only.
  { name: 'gm', type: T.int4, gen: () => int(0, 299), nullP: 0 },
  { name: 'gt', type: T.text, gen: () => pick(['a', 'b', 'ab', '', 'ba', 'abc']), nullP: 0.05 },
  { name: 'gf', type: T.float8, gen: () => pick([0, -0, NaN, 1.5, Infinity, -Infinity, -2]), nullP: 0.05 },
  { name: 'gn', type: T.numeric, gen: () => pick(['1', '1.0', '1.00', '2.5', '-0', '0.000', 'NaN'].map((s) => Numeric.parse(s))), nullP: 0.05 },
  { name: 'b', type: T.bool, gen: () => chance(0.7), nullP: 0.1 },
  { name: 'i2', type: T.int2, gen: () => int(-32768, 32767), nullP: 0.1 },
  { name: 'i4', type: T.int4, gen: () => (chance(0.5) ? int(-2147483648, 2147483647) : int(-10, 10)), nullP: 0.1 },
  { name: 'i8', type: T.int8, gen: int8Val, nullP: 0.1 },
  { name: 'f4', type: T.float4, gen: float4Val, nullP: 0.1 },
  { name: 'f8', type: T.float8, gen: float8Val, nullP: 0.1 },
  { name: 'n', type: T.numeric, gen: numericVal, nullP: 0.1 },
  // Without NaN/Infinity, so that whole-table and coarse-group results are not all NaN.
  { name: 'f4c', type: T.float4, gen: () => Math.fround((rand() - 0.5) * 10 ** int(-10, 30)), nullP: 0.1 },
  { name: 'f8c', type: T.float8, gen: () => (rand() - 0.5) * 10 ** int(-20, 100), nullP: 0.1 },
  { name: 'nc', type: T.numeric, gen: () => { for (;;) { const v = numericVal() as Numeric; if (v.isFinite()) return v; } }, nullP: 0.1 },
  { name: 't', type: T.text, gen: textVal, nullP: 0.1 },
  { name: 'dl', type: T.text, gen: () => pick([',', ';', '', '--']), nullP: 0.2 },
  {
    name: 'iv',
    type: T.interval,
    gen: () => new Interval(int(-30, 30), int(-100, 100), int(-86_400_000_000, 86_400_000_000) * int(0, 3)),
    nullP: 0.1,
  },
  { name: 'd', type: T.date, gen: () => (chance(0.02) ? pick([Infinity, -Infinity]) : int(-200000, 200000)), nullP: 0.1 },
  { name: 'ts', type: T.timestamp, gen: () => int(-1e9, 1e9) * 1e6 + int(0, 999999), nullP: 0.1 },
];
const COL_INDEX = new Map(COLS.map((c, i) => [c.name, i]));

const NROWS = 3000;
const ROWS: Value[][] = [];
for (let i = 0; i < NROWS; i++) ROWS.push(COLS.map((c) => (chance(c.nullP) ? null : c.gen())));

interface AggDef {
  fn: string;
  args: string[];
  distinct?: boolean;
  filter?: string;
  orderBy?: { col: string; desc?: boolean; nullsFirst?: boolean }[];
}

function aggSql(a: AggDef): string {
  const args = a.args.length === 0 ? '*' : a.args.join(', ');
  let s = `${a.fn}(${a.distinct ? 'DISTINCT ' : ''}${args}`;
  if (a.orderBy?.length) {
    s +=
      ' ORDER BY ' +
      a.orderBy
        .map((o) => `${o.col}${o.desc ? ' DESC' : ''}${o.nullsFirst === undefined ? '' : o.nullsFirst ? ' NULLS FIRST' : ' NULLS LAST'}`)
        .join(', ');
  }
  s += ')';
  if (a.filter) s += ` FILTER (WHERE ${a.filter})`;
  return s;
}

/** Runs the aggregates in both engines, grouped by `keys`, and compares per group. */
async function check(keys: string[], aggs: AggDef[], batchSizes: number[] = [1, 7, 500, 4096, 33]): Promise<void> {
  // Quire input: key columns first, then every other referenced column once.
  const used: string[] = [...keys];
  for (const a of aggs) {
    for (const c of [...a.args, ...(a.filter ? [a.filter] : []), ...(a.orderBy ?? []).map((o) => o.col)]) {
      if (!used.includes(c)) used.push(c);
    }
  }
  const types = used.map((c) => COLS[COL_INDEX.get(c)!]!.type);
  const rows = ROWS.map((r) => used.map((c) => r[COL_INDEX.get(c)!]!));
  const specs: HashAggSpec[] = aggs.map((a) => {
    const argTypes = a.args.map((c) => COLS[COL_INDEX.get(c)!]!.type);
    return {
      impl: resolve(a.fn, argTypes),
      argCols: a.args.map((c) => used.indexOf(c)),
      filterCol: a.filter ? used.indexOf(a.filter) : null,
      distinct: a.distinct ?? false,
      orderBy: (a.orderBy ?? []).map((o) => {
        const t = COLS[COL_INDEX.get(o.col)!]!.type;
        return { col: used.indexOf(o.col), desc: o.desc ?? false, nullsFirst: o.nullsFirst ?? (o.desc ?? false), type: t };
      }),
    };
  });
  const src = new BatchSource(
    used.map((name, i) => ({ name, type: types[i]! })),
    toBatches(types, rows, batchSizes),
  );
  const op = new HashAggregate(src, { keyCount: keys.length, keyTypes: types.slice(0, keys.length), aggs: specs });
  const outTypes = op.schema.map((f) => f.type);
  const ours = (await collect(op)).map((r) => r.map((v, i) => fmt(v, outTypes[i]!)));

  const sql = `select ${[...keys, ...aggs.map(aggSql)].join(', ')} from (select * from t order by id) t${keys.length ? ' group by ' + keys.join(', ') : ''}`;
  const r = await pg.query<(string | null)[]>(sql, [], { rowMode: 'array', parsers });
  const theirs = r.rows.map((row) => row.map((v) => (v === null ? null : String(v))));
  // Result types, by OID.
  const theirTypes = r.fields.slice(keys.length).map((f) => f.dataTypeID);
  expect(
    specs.map((s) => TYPE_OID[s.impl.returnType.name]),
    sql,
  ).toEqual(theirTypes);

  const byKey = (rs: (string | null)[][]): Map<string, (string | null)[]> => {
    const m = new Map<string, (string | null)[]>();
    for (const row of rs) m.set(JSON.stringify(row.slice(0, keys.length)), row.slice(keys.length));
    return m;
  };
  const a = byKey(ours);
  const b = byKey(theirs);
  expect(ours.length, sql).toBe(theirs.length);
  expect(a.size, `${sql}: duplicate groups`).toBe(ours.length);
  for (const [k, v] of b) {
    expect({ group: k, values: a.get(k) }, sql).toEqual({ group: k, values: v });
  }
}

beforeAll(async () => {
  pg = await startPg();
  parsers = await rawParsers(pg);
  // The queries read `t` ordered by id (the heap need not keep insertion order) and hash-aggregate it,
  // so float sums and unordered string_agg see rows in the same order as ours.
  await pg.exec('set enable_sort = off');
  await loadTable(pg, 't', COLS, ROWS);
});
afterAll(async () => {
  await pg.close();
});

const NUMERIC_AGGS = ['count', 'sum', 'avg', 'min', 'max', 'stddev', 'stddev_pop', 'var_samp', 'var_pop', 'variance', 'stddev_samp'];

describe('HashAggregate vs PostgreSQL', () => {
  for (const col of ['i2', 'i4', 'i8', 'n', 'nc']) {
    it(`numeric-family aggregates of ${col}`, async () => {
      const aggs = NUMERIC_AGGS.map((fn) => ({ fn, args: [col] }));
      await check(['g'], aggs);
      await check(['gm'], aggs);
    });
  }

  for (const col of ['f4', 'f8', 'f4c', 'f8c']) {
    it(`float aggregates of ${col}`, async () => {
      const aggs = NUMERIC_AGGS.map((fn) => ({ fn, args: [col] }));
      await check(['g'], aggs);
      await check(['gm'], aggs);
    });
  }

  it('bit_and / bit_or of ints', async () => {
    await check(
      ['g'],
      ['i2', 'i4', 'i8'].flatMap((c) => [
        { fn: 'bit_and', args: [c] },
        { fn: 'bit_or', args: [c] },
      ]),
    );
  });

  it('no GROUP BY: one row over everything', async () => {
    await check(
      [],
      [
        { fn: 'count', args: [] },
        ...['i2', 'i4', 'i8', 'n', 'f8', 'f4', 'nc', 'f8c', 'f4c'].flatMap((c) => ['sum', 'avg', 'stddev', 'var_pop'].map((fn) => ({ fn, args: [c] }))),
        { fn: 'sum', args: ['iv'] },
        { fn: 'avg', args: ['iv'] },
      ],
    );
  });

  it('count(*), count(x) of every type, min/max of orderable types', async () => {
    const ord = ['i2', 'i4', 'i8', 'f4', 'f8', 'n', 't', 'iv', 'd', 'ts', 'gn', 'gf', 'gt', 'f4c', 'f8c', 'nc'];
    await check(
      ['g'],
      [
        { fn: 'count', args: [] },
        ...COLS.map((c) => ({ fn: 'count', args: [c.name] })),
        ...ord.flatMap((c) => [
          { fn: 'min', args: [c] },
          { fn: 'max', args: [c] },
        ]),
      ],
    );
  });

  it('booleans', async () => {
    await check(
      ['g'],
      [
        { fn: 'bool_and', args: ['b'] },
        { fn: 'bool_or', args: ['b'] },
        { fn: 'every', args: ['b'] },
        { fn: 'count', args: ['b'] },
      ],
    );
  });

  it('interval sum/avg/min/max', async () => {
    await check(
      ['g'],
      ['sum', 'avg', 'min', 'max'].map((fn) => ({ fn, args: ['iv'] })),
    );
  });

  it('string_agg with per-row delimiters, ORDER BY, DISTINCT', async () => {
    await check(
      ['g'],
      [
        // id breaks ties: PostgreSQL's sort is not stable.
        { fn: 'string_agg', args: ['t', 'dl'], orderBy: [{ col: 't' }, { col: 'id' }] },
        { fn: 'string_agg', args: ['t', 'dl'], orderBy: [{ col: 't', desc: true }, { col: 'id', desc: true }] },
        { fn: 'string_agg', args: ['t', 'dl'], orderBy: [{ col: 'i4', nullsFirst: true }, { col: 'id' }] },
        { fn: 'string_agg', args: ['t', 'dl'], orderBy: [{ col: 'i8', desc: true, nullsFirst: false }, { col: 'id' }] },
        { fn: 'string_agg', args: ['t', 'dl'], orderBy: [{ col: 'n' }, { col: 'id' }], filter: 'b' },
      ],
    );
  });

  it('string_agg without ORDER BY follows input order', async () => {
    // Only meaningful without ordered aggregates in the same query: PostgreSQL would presort the input
    // for those, changing what the unordered ones see.
    await check(
      ['g'],
      [
        { fn: 'string_agg', args: ['t', 'dl'] },
        { fn: 'string_agg', args: ['t', 'dl'], filter: 'b' },
        { fn: 'string_agg', args: ['gt', 't'] },
      ],
    );
    await check([], [{ fn: 'string_agg', args: ['t', 'dl'] }]);
  });

  it('DISTINCT aggregates', async () => {
    await check(
      ['g'],
      [
        { fn: 'count', args: ['t'], distinct: true },
        { fn: 'count', args: ['gf'], distinct: true },
        { fn: 'count', args: ['gn'], distinct: true },
        { fn: 'sum', args: ['i4'], distinct: true },
        { fn: 'sum', args: ['f8'], distinct: true },
        { fn: 'avg', args: ['gn'], distinct: true },
        { fn: 'sum', args: ['gn'], distinct: true },
        { fn: 'count', args: ['b'], distinct: true, filter: 'b' },
        { fn: 'count', args: ['i8'], distinct: true },
        { fn: 'sum', args: ['nc'], distinct: true },
        { fn: 'avg', args: ['i8'], distinct: true },
        { fn: 'stddev', args: ['gn'], distinct: true },
      ],
    );
  });

  it('string_agg(DISTINCT …) sorts by the argument', async () => {
    await check(['g'], [{ fn: 'string_agg', args: ['t', 'gt'], distinct: true, orderBy: [{ col: 't' }, { col: 'gt' }] }]);
    await check(['g'], [{ fn: 'string_agg', args: ['t', 'gt'], distinct: true, orderBy: [{ col: 't', desc: true }] }]);
    await check(['gm'], [{ fn: 'string_agg', args: ['t', 'gt'], distinct: true }]);
  });

  it('FILTER', async () => {
    await check(
      ['g'],
      [
        { fn: 'count', args: [], filter: 'b' },
        { fn: 'sum', args: ['i4'], filter: 'b' },
        { fn: 'avg', args: ['n'], filter: 'b' },
        { fn: 'min', args: ['t'], filter: 'b' },
        { fn: 'sum', args: ['f8'], filter: 'b' },
      ],
    );
  });

  it('text key, float key (NaN, -0 = 0), numeric key (1.0 = 1.00), composite keys', async () => {
    const aggs: AggDef[] = [
      { fn: 'count', args: [] },
      { fn: 'sum', args: ['i8'] },
      { fn: 'max', args: ['t'] },
    ];
    await check(['gt'], aggs);
    await check(['gf'], aggs.slice(0, 2));
    await check(['g', 'b'], aggs);
    await check(['gt', 'g', 'b'], aggs);
    await check(['b'], aggs);
    await check(['i8'], [{ fn: 'count', args: [] }]);
  });

  it('numeric and float keys print the first-seen representative', async () => {
    // PostgreSQL keeps the first row's key value, which shows in 1.0 vs 1.00 and -0 vs 0.
    await check(['gn'], [{ fn: 'count', args: [] }]);
    await check(['gf', 'gn'], [{ fn: 'count', args: [] }]);
  });
});

/**
 * Nested Arrow columns (read_arrow and Database.registerArrow): a List (also LargeList and
 * FixedSizeList) reads as an array of its element's type, a Struct as a record with the field names,
 * a Map and a list of lists as JSON text, as read_parquet maps Parquet's. NULL lists, empty lists and
 * NULL elements, NULL structs, structs inside lists and lists inside structs, microsecond timestamps
 * inside a list (apache-arrow's get() would round them to milliseconds), and several record batches.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as arrow from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

let dir: string;
let file: string;
let table: arrow.Table;
let db: Database;

const field = (name: string, type: arrow.DataType): arrow.Field => new arrow.Field(name, type, true);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-arrow-nested-'));
  file = join(dir, 'n.arrow');
  const n = 5;
  const ids = Int32Array.from({ length: n }, (_, i) => i);
  const l = arrow.vectorFromArray([[1, null, 3], [], null, [4], [5, 6]], new arrow.List(field('item', new arrow.Int32())));
  const s = arrow.vectorFromArray(
    [{ a: 1, b: 'x', c: [1.5] }, null, { a: null, b: null, c: null }, { a: 4, b: 'd "q"', c: [] }, { a: 5, b: 'é', c: [2.5, null] }],
    new arrow.Struct([field('a', new arrow.Int32()), field('b', new arrow.Utf8()), field('c', new arrow.List(field('item', new arrow.Float64())))]),
  );
  const ls = arrow.vectorFromArray([[{ p: 1 }, null], null, [], [{ p: 4 }], [{ p: null }]], new arrow.List(field('item', new arrow.Struct([field('p', new arrow.Int32())]))));
  const ll = arrow.vectorFromArray([[[1], [2, 3]], null, [], [[4]], [[]]], new arrow.List(field('item', new arrow.List(field('item', new arrow.Int32())))));
  // Microsecond timestamps inside a list, built from raw values.
  const micros = BigInt64Array.from([1700000000123456n, -1n, 0n, 1700000000000001n, 86400000000n]);
  const tsType = new arrow.TimestampMicrosecond();
  const tsChild = arrow.makeData({ type: tsType, length: 5, nullCount: 0, data: micros });
  const ts = arrow.makeVector(
    arrow.makeData({ type: new arrow.List(field('item', tsType)), length: n, nullCount: 0, valueOffsets: Int32Array.from([0, 2, 2, 3, 4, 5]), child: tsChild }),
  );
  table = new arrow.Table({ id: arrow.makeVector(ids), l, s, ls, ll, ts });
  writeFileSync(file, arrow.tableToIPC(table, 'file'));
  db = await Database.create();
  db.registerArrow('reg', table);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sources: [string, () => string][] = [
  ['read_arrow', () => `read_arrow('${file}')`],
  ['registerArrow', () => 'reg'],
];

describe('nested Arrow columns', () => {
  for (const [how, source] of sources) {
    it(`${how}: lists as arrays, structs as records, lists of lists as JSON text`, async () => {
      const from = source();
      const r = await db.query(`SELECT l, s, ls, ll, ts FROM ${from} LIMIT 1`);
      expect(r.columns.map((c) => c.type.name)).toEqual(['_int4', 'record', '_record', 'text', '_timestamp']);
      const rows = (await db.query(`SELECT id, l, cardinality(l), to_json(s)::text, (s).a, (s).c[1], to_json(ls)::text, ll, ts::text[] FROM ${from} ORDER BY id`)).rows;
      expect(rows).toEqual([
        [0, [1, null, 3], 3, '{"a":1,"b":"x","c":[1.5]}', 1, 1.5, '[{"p":1},null]', '[[1],[2,3]]', ['2023-11-14 22:13:20.123456', '1969-12-31 23:59:59.999999']],
        [1, [], 0, null, null, null, null, null, []],
        [2, null, null, '{"a":null,"b":null,"c":null}', null, null, '[]', '[]', ['1970-01-01 00:00:00']],
        [3, [4], 1, '{"a":4,"b":"d \\"q\\"","c":[]}', 4, null, '[{"p":4}]', '[[4]]', ['2023-11-14 22:13:20.000001']],
        [4, [5, 6], 2, '{"a":5,"b":"é","c":[2.5,null]}', 5, 2.5, '[{"p":null}]', '[[]]', ['1970-01-02 00:00:00']],
      ]);
    });
  }

  it('read_arrow and registerArrow give one record type: they union and compare', async () => {
    const r = await db.query(`SELECT count(*), count(DISTINCT s) FROM (SELECT s FROM read_arrow('${file}') UNION ALL SELECT s FROM reg) x`);
    expect(r.rows).toEqual([[10, 4]]);
    const j = await db.query(`SELECT count(*) FROM read_arrow('${file}') a JOIN reg b ON a.s = b.s AND a.l = b.l`);
    // Rows 0, 3 and 4: row 2's record of NULLs is not equal to itself, and NULL elements of equal arrays are.
    expect(j.rows).toEqual([[3]]);
  });

  it('unnest of a list of timestamps keeps the microseconds', async () => {
    const r = await db.query(`SELECT min(x)::text, max(x)::text, count(*) FROM (SELECT unnest(ts) AS x FROM read_arrow('${file}')) u`);
    expect(r.rows).toEqual([['1969-12-31 23:59:59.999999', '2023-11-14 22:13:20.123456', 5]]);
  });

  it('a sliced table (chunks with an offset) reads the sliced rows', async () => {
    db.registerArrow('sliced', table.slice(2));
    const r = await db.query(`SELECT id, l, (s).a, ts::text[] FROM sliced ORDER BY id`);
    expect(r.rows).toEqual([
      [2, null, null, ['1970-01-01 00:00:00']],
      [3, [4], 4, ['2023-11-14 22:13:20.000001']],
      [4, [5, 6], 5, ['1970-01-02 00:00:00']],
    ]);
    const flat = new arrow.Table({
      t: arrow.makeVector(arrow.makeData({ type: new arrow.TimestampMicrosecond(), length: 5, nullCount: 0, data: BigInt64Array.from([1n, 2n, 3n, 4n, 5n]) })),
    });
    db.registerArrow('flat_sliced', flat.slice(1, 4));
    expect((await db.query(`SELECT t::text FROM flat_sliced`)).rows).toEqual([['1970-01-01 00:00:00.000002'], ['1970-01-01 00:00:00.000003'], ['1970-01-01 00:00:00.000004']]);
  });
});

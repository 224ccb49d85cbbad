/** The table functions through SQL (binder: named args, coercion of unknown literals; executor). */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/api/database.js';

let dir: string;
let db: Database;
beforeEach(async () => {
  dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'quire-tf-'));
  db = await Database.create({ settings: { TimeZone: 'UTC' } });
});
afterEach(async () => {
  await fs.promises.rm(dir, { recursive: true, force: true });
});

describe('table functions in SQL', () => {
  it('generate_series', async () => {
    expect((await db.query('select * from generate_series(1, 3)')).rows).toEqual([[1], [2], [3]]);
    const r = await db.query('select g from generate_series(10, 1, -4) as g');
    expect(r.columns.map((c) => c.name)).toEqual(['g']);
    expect(r.rows).toEqual([[10], [6], [2]]);
    expect((await db.query('select count(*) from generate_series(1, 100000)')).rows).toEqual([[100000]]);
    const ts = await db.query("select generate_series::text from generate_series('2020-01-01'::date, '2020-01-03', '1 day')");
    expect(ts.rows).toEqual([['2020-01-01 00:00:00+00'], ['2020-01-02 00:00:00+00'], ['2020-01-03 00:00:00+00']]);
    await expect(db.query('select * from generate_series(1, 3, 0)')).rejects.toMatchObject({ code: '22023', message: 'step size cannot equal zero' });
  });

  it('read_csv and read_json with named arguments', async () => {
    const csv = path.join(dir, 'a.csv');
    fs.writeFileSync(csv, 'id;name\n1;x\n2;y\n');
    const r = await db.query(`select name, id + 1 as n from read_csv('${csv}', delim => ';') order by id desc`);
    expect(r.rows).toEqual([
      ['y', 3],
      ['x', 2],
    ]);
    const h = await db.query(`select * from read_csv('${csv}', header => false, delim => ';')`);
    expect(h.rows).toEqual([
      ['id', 'name'],
      ['1', 'x'],
      ['2', 'y'],
    ]);
    const js = path.join(dir, 'a.ndjson');
    fs.writeFileSync(js, '{"a": 1, "b": "p"}\n{"a": 2}\n');
    expect((await db.query(`select a, b from read_json('${js}')`)).rows).toEqual([
      [1, 'p'],
      [2, null],
    ]);
    await expect(db.query(`select * from read_csv('${path.join(dir, 'missing.csv')}')`)).rejects.toMatchObject({
      code: '58P01',
      message: `could not open file "${path.join(dir, 'missing.csv')}" for reading: No such file or directory`,
    });
  });
});

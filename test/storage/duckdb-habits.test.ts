/**
 * DuckDB habits that PostgreSQL's grammar does not have: a quoted file name where a table goes
 * (`FROM 'events.csv'`, chosen by extension) and the read_csv_auto / read_json_auto names.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-habits-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'a.csv'), 'id,name\n1,x\n2,y\n3,z\n');
fs.writeFileSync(path.join(dir, "o'hara.csv"), 'id,name\n7,q\n');
fs.writeFileSync(path.join(dir, 'e.ndjson'), '{"id": 1, "v": 2.5}\n{"id": 2, "v": null}\n');

describe('DuckDB habits', () => {
  it('reads a quoted file name after FROM and JOIN with the reader its extension names', async () => {
    const db = await Database.create();
    const a = path.join(dir, 'a.csv');
    expect((await db.query(`SELECT id, name FROM '${a}' WHERE id > 1 ORDER BY id`)).rows).toEqual([[2, 'y'], [3, 'z']]);
    expect((await db.query(`SELECT t.name, e.v FROM '${a}' t JOIN '${path.join(dir, 'e.ndjson')}' e ON e.id = t.id ORDER BY t.id`)).rows.map((r) => [r[0], r[1] === null ? null : Number(r[1])])).toEqual([['x', 2.5], ['y', null]]);
    expect((await db.query(`SELECT id FROM '${path.join(dir, "o''hara.csv")}'`)).rows).toEqual([[7]]);
    // EXPLAIN shows the reader it became.
    expect((await db.query(`EXPLAIN (FORMAT QUIRE) SELECT * FROM '${a}'`)).rows.map((r) => r[0]).join('\n')).toContain('read_csv');
  });

  it('leaves valid SQL alone and reports the original syntax error otherwise', async () => {
    const db = await Database.create();
    expect((await db.query(`SELECT 'from ''x.csv''' AS s`)).rows).toEqual([["from 'x.csv'"]]);
    await expect(db.query(`SELECT * FROM 'notes.xyz'`)).rejects.toMatchObject({ code: '42601', message: `syntax error at or near "'notes.xyz'"` });
  });

  it('read_csv_auto and read_json_auto are read_csv and read_json', async () => {
    const db = await Database.create();
    expect((await db.query(`SELECT count(*) FROM read_csv_auto('${path.join(dir, 'a.csv')}')`)).rows).toEqual([[3]]);
    expect((await db.query(`SELECT count(*) FROM read_json_auto('${path.join(dir, 'e.ndjson')}')`)).rows).toEqual([[2]]);
  });

  it('DESCRIBE a table, a query or a file: columns, types, NULL and keys', async () => {
    const db = await Database.create();
    await db.query('create table d (id int primary key, name text not null, v float8, u int unique)');
    expect((await db.query('describe d')).columns.map((c) => c.name)).toEqual(['column_name', 'column_type', 'null', 'key', 'default', 'extra']);
    expect((await db.query('DESCRIBE d;')).rows).toEqual([
      ['id', 'integer', 'NO', 'PRI', null, null],
      ['name', 'text', 'NO', null, null, null],
      ['v', 'double precision', 'YES', null, null, null],
      ['u', 'integer', 'YES', 'UNI', null, null],
    ]);
    expect((await db.query("describe select id, name || 'x' as n from d")).rows.map((r) => r.slice(0, 2))).toEqual([['id', 'integer'], ['n', 'text']]);
    expect((await db.query(`describe '${path.join(dir, 'a.csv')}'`)).rows.map((r) => r.slice(0, 2))).toEqual([['id', 'integer'], ['name', 'text']]);
    // Errors point into the statement as written.
    await expect(db.query('describe nosuch')).rejects.toMatchObject({ code: '42P01', position: 10 });
    await expect(db.query('describe select nocol from d')).rejects.toMatchObject({ code: '42703', position: 17 });
  });

  it('SUMMARIZE: min, max, distinct count, mean, deviation, quartiles, count and NULL share per column', async () => {
    const db = await Database.create();
    await db.query("create table s (id int, name text, v float8, b bool)");
    await db.query("insert into s values (1, 'a', 1.5, true), (2, 'b', null, false), (3, 'c', 4.5, null), (4, 'a', 2, true)");
    const r = await db.query('summarize s');
    expect(r.columns.map((c) => c.name)).toEqual(['column_name', 'column_type', 'min', 'max', 'approx_unique', 'avg', 'std', 'q25', 'q50', 'q75', 'count', 'null_percentage']);
    const rows = r.rows.map((x) => x.map((v) => (v === null || typeof v !== 'object' ? v : String(v))));
    expect(rows).toEqual([
      ['id', 'integer', '1', '4', 4, '2.5000000000000000', '1.2909944487358056', '1', '2', '3', 4, '0.00'],
      ['name', 'text', 'a', 'c', 3, null, null, null, null, null, 4, '0.00'],
      ['v', 'double precision', '1.5', '4.5', 3, '2.6666666666666665', '1.6072751268321592', '1.5', '2', '4.5', 4, '25.00'],
      ['b', 'boolean', 'false', 'true', 2, null, null, null, null, null, 4, '25.00'],
    ]);
    expect((await db.query('summarize select id from s where id > 2')).rows.map((x) => x.slice(0, 5))).toEqual([['id', 'integer', '3', '4', 2]]);
  });
});

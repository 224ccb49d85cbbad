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
    expect((await db.query(`EXPLAIN SELECT * FROM '${a}'`)).rows.map((r) => r[0]).join('\n')).toContain('read_csv');
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
});

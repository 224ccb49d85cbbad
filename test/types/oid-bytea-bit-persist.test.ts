/** oid, bytea and bit strings in a database directory: the table files and the log give back the same values. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'quire-types-persist-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CHECK = "select o, encode(b, 'hex'), x::text, y::text from z order by o, b limit 3";

describe('new types in a database directory', () => {
  it('come back after reopening, from bulk batches and single-row inserts alike', async () => {
    let db = await Database.create({ path: dir });
    await db.query('create table z (o oid, b bytea, x bit(3), y varbit)');
    await db.query("insert into z select g, decode(md5(g::text), 'hex'), B'010', B'11' from generate_series(1, 3000) g");
    await db.query("insert into z values (0, '\\x00ff805c', B'101', B'1'), (0, '', B'000', '')");
    const before = (await db.query(CHECK)).rows;
    const total = (await db.query("select count(distinct b), sum(length(b)), string_agg(encode(b, 'hex'), '' order by o, b) from z")).rows;
    await db.close();
    db = await Database.create({ path: dir });
    expect((await db.query(CHECK)).rows).toEqual(before);
    expect(before[0]).toEqual([0, '', '000', '']);
    expect(before[1]).toEqual([0, '00ff805c', '101', '1']);
    expect((await db.query("select count(distinct b), sum(length(b)), string_agg(encode(b, 'hex'), '' order by o, b) from z")).rows).toEqual(total);
    await db.close();
  });
});

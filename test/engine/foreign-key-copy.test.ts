/**
 * COPY FROM into a referencing table is checked like INSERT: one key missing from the parent fails the
 * whole COPY with 23503 and loads nothing; a self-referencing file may name keys it brings itself.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'quire-fk-copy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function csv(name: string, text: string): string {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f.replace(/'/g, "''");
}

describe('COPY FROM and foreign keys', () => {
  it('refuses a file with a key the parent lacks and loads one without', async () => {
    const db = await Database.create();
    await db.query('CREATE TABLE p (id int PRIMARY KEY)');
    await db.query('CREATE TABLE c (id int, pid int REFERENCES p)');
    await db.query('INSERT INTO p VALUES (1), (2)');
    const bad = csv('bad.csv', '1,1\n2,3\n3,\n');
    await expect(db.query(`COPY c FROM '${bad}' (FORMAT csv)`)).rejects.toMatchObject({ code: '23503', detail: 'Key (pid)=(3) is not present in table "p".' });
    expect((await db.query('SELECT count(*) FROM c')).rows).toEqual([[0]]);
    const good = csv('good.csv', '1,1\n2,2\n3,\n');
    await db.query(`COPY c FROM '${good}' (FORMAT csv)`);
    expect((await db.query('SELECT id, pid FROM c ORDER BY id')).rows).toEqual([[1, 1], [2, 2], [3, null]]);
  });

  it('loads a self-referencing file whose rows name each other', async () => {
    const db = await Database.create();
    await db.query('CREATE TABLE t (id int PRIMARY KEY, up int REFERENCES t)');
    const f = csv('tree.csv', '2,1\n1,\n3,2\n');
    await db.query(`COPY t FROM '${f}' (FORMAT csv)`);
    expect((await db.query('SELECT count(*) FROM t')).rows).toEqual([[3]]);
    await expect(db.query(`COPY t FROM '${csv('orphan.csv', '9,8\n')}' (FORMAT csv)`)).rejects.toMatchObject({ code: '23503' });
  });
});

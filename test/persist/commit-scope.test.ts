/**
 * A commit logs only the tables that reported a change since the last record (the catalog's other
 * tables are not looked at): every kind of change to one table among many — rows appended into the
 * open batch, rewritten, truncated, keys and indexes added or dropped, tables created, dropped and
 * created again under the same name, views — must still reach the log, so a crash copy replays to
 * what the writer holds, after every statement of a script over many tables.
 */
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { storeFor } from '../../src/storage/persist/index.js';
import { scratchDirs } from './scratch-dirs.js';

const { fresh, crashCopy } = scratchDirs('quire-commit-scope-');

/** Every table's and view's rows, in a fixed order. */
async function contents(db: Database): Promise<string> {
  const names = [...db.catalog.tables.keys()].sort();
  const out: string[] = [];
  for (const n of names) out.push(`${n}: ${JSON.stringify((await db.query(`SELECT * FROM "${n}" ORDER BY 1, 2`)).rows)}`);
  return out.join('\n');
}

/** The definitions a replay must restore: columns, unique keys and secondary indexes per table, and the views. */
function definitions(db: Database): string {
  const tables = [...db.catalog.tables.keys()].sort().map((n) => {
    const t = db.catalog.getMemoryTable(n);
    return { n, columns: t.schema.map((f) => f.name), keys: t.uniqueKeys, fks: t.foreignKeys, names: t.uniqueNames, pk: t.primaryKey, indexes: (t.indexes.length > 0 ? t.indexes : t.restoreIndexes).map((i) => i.name) };
  });
  return JSON.stringify({ tables, views: [...db.catalog.views.keys()].sort() });
}

describe('commits log only the tables that changed', () => {
  it('every change to one table among many is in the log, after each statement', async () => {
    const dir = fresh();
    const db = await Database.create({ path: dir });
    for (let i = 0; i < 40; i++) await db.query(`CREATE TABLE x${i} (a int, b text)`);
    for (let i = 0; i < 40; i += 3) await db.query(`INSERT INTO x${i} VALUES (${i}, 'x')`);
    const script = [
      "INSERT INTO x7 VALUES (1, 'a')",
      "INSERT INTO x7 VALUES (2, 'b')",
      "INSERT INTO x30 VALUES (3, 'c'), (4, NULL)",
      "UPDATE x7 SET b = 'changed' WHERE a = 1",
      'DELETE FROM x30 WHERE a = 3',
      'CREATE UNIQUE INDEX x7_a ON x7 (a)',
      'CREATE INDEX x30_b ON x30 (b)',
      "INSERT INTO x30 VALUES (5, 'e')",
      'DROP INDEX x7_a',
      "INSERT INTO x7 VALUES (1, 'dup allowed again')",
      'CREATE UNIQUE INDEX x12_a ON x12 (a)',
      "INSERT INTO x12 VALUES (99, 'key')",
      'ALTER TABLE x13 ADD FOREIGN KEY (a) REFERENCES x12 (a)',
      "INSERT INTO x13 VALUES (99, 'references x12')",
      'TRUNCATE x0',
      'DROP TABLE x3',
      'CREATE TABLE x3 (a int, b text)',
      "INSERT INTO x3 VALUES (33, 'again')",
      'CREATE VIEW v7 AS SELECT a, b FROM x7 WHERE a > 1',
      "BEGIN; INSERT INTO x20 VALUES (20, 'block'); INSERT INTO x21 VALUES (21, 'block'); COMMIT",
      "BEGIN; INSERT INTO x22 VALUES (22, 'rolled back'); ROLLBACK",
      "INSERT INTO x22 VALUES (23, 'kept')",
      'DROP VIEW v7',
      'CREATE TABLE s (id serial, b text)',
      "INSERT INTO s (b) VALUES ('one')",
      "INSERT INTO s (b) VALUES ('two')",
      'DROP TABLE x39',
      "INSERT INTO x38 SELECT i, 'bulk' FROM generate_series(1, 600) i",
      "INSERT INTO x38 VALUES (601, 'after bulk')",
    ];
    for (const sql of script) {
      for (const s of sql.split('; ')) await db.query(s);
      const copy = crashCopy(dir);
      const replayed = await Database.create({ path: copy, readOnly: true });
      expect(await contents(replayed), sql).toBe(await contents(db));
      expect(definitions(replayed), sql).toBe(definitions(db));
      await replayed.close();
    }
    // Keys survive the replay as constraints, not only as names.
    const replayed = await Database.create({ path: crashCopy(dir) });
    await expect(replayed.query("INSERT INTO x12 VALUES (99, 'dup')")).rejects.toMatchObject({ code: '23505' });
    await expect(replayed.query("INSERT INTO x13 VALUES (98, 'no parent')")).rejects.toMatchObject({ code: '23503' });
    await replayed.close();
    await db.close();
  });

  it('a one-row commit into one table of many writes a record about that table only', async () => {
    const dir = fresh();
    const db = await Database.create({ path: dir });
    for (let i = 0; i < 50; i++) await db.query(`CREATE TABLE y${i} (a int, b text)`);
    for (let i = 0; i < 50; i++) await db.query(`INSERT INTO y${i} VALUES (${i}, 'first')`);
    const store = storeFor(db.catalog)!;
    const before = store.walStats()!;
    for (let i = 0; i < 50; i++) await db.query(`INSERT INTO y${i} VALUES (${i + 100}, 'second')`);
    const after = store.walStats()!;
    expect(after.lsn - before.lsn).toBe(50);
    // A row and its framing each, as into a database of one table.
    expect((after.bytes - before.bytes) / 50).toBeLessThan(200);
    const copy = crashCopy(dir);
    const replayed = await Database.create({ path: copy, readOnly: true });
    expect(await contents(replayed)).toBe(await contents(db));
    await replayed.close();
    await db.close();
  });
});

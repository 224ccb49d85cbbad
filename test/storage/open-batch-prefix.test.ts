/**
 * One-row commits publish a new, longer batch over the table's open batch without copying its plain
 * (text, numeric) columns: each published batch's values are copied from the shared row slots on
 * first read. Every batch a commit published must still read exactly its own rows, however many
 * commits, rolled-back writes into the same slots and copies into larger buffers came after, and
 * the table must answer queries as PostgreSQL does.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Batch } from '../../src/common/column.js';
import { Database } from '../../src/index.js';
import { MemoryTable } from '../../src/storage/memory-table.js';
import { newPGlite } from '../common/pglite.js';

const pg = newPGlite();
afterAll(async () => pg.close());

/** The rows of one batch, read column by column through `data`. */
function rowsOf(b: Batch): unknown[][] {
  const out: unknown[][] = [];
  for (let r = 0; r < b.length; r++) out.push(b.columns.map((c) => (c.nulls !== null && c.nulls[r] === 1 ? null : c.data[r])));
  return out;
}

describe('open batch published without copying its plain columns', () => {
  it('every batch a commit published keeps exactly its rows', async () => {
    const db = await Database.create();
    await db.query('CREATE TABLE t (id int, s text, n numeric)');
    const t = db.catalog.getMemoryTable('t');
    const held: { batch: Batch; rows: unknown[][] }[] = [];
    const expected: unknown[][] = [];
    for (let i = 0; i < 1500; i++) {
      const s = i % 11 === 0 ? null : `v${i}`;
      const n = i % 13 === 0 ? null : `${i}.5`;
      await db.query(`INSERT INTO t VALUES ($1, $2, $3)`, [i, s, n]);
      expected.push([i, s, n]);
      if (i % 97 === 3) {
        // A write into the same slots that is rolled back: the published prefix must not see it.
        await db.query('BEGIN');
        await db.query("INSERT INTO t VALUES (-1, 'rolled back', 0)");
        await db.query('ROLLBACK');
      }
      if (i % 7 === 0) {
        const snap = t.snapshot();
        const last = snap[snap.length - 1]!;
        // Read later, after more commits wrote past this batch's rows: recorded now from the expected rows.
        const start = expected.length - last.length;
        held.push({ batch: last, rows: expected.slice(start).map((r) => [r[0], r[1], r[2] === null ? null : Number(r[2])]) });
      }
    }
    for (const h of held) {
      expect(h.batch.columns[1]!.data.length).toBe(h.batch.length);
      const got = rowsOf(h.batch).map((r) => [r[0], r[1], r[2] === null ? null : Number(r[2])]);
      expect(got).toEqual(h.rows);
    }
    const all = (await db.query('SELECT id, s, n::text FROM t ORDER BY id')).rows;
    expect(all).toEqual(expected.map((r) => [r[0], r[1], r[2]]));
    await db.close();
  });

  it('queries over a table filled by one-row commits agree with PostgreSQL', async () => {
    const db = await Database.create();
    const ddl = 'CREATE TABLE u (id int PRIMARY KEY, s text, n numeric)';
    await db.query(ddl);
    await pg.query(ddl);
    for (let i = 0; i < 1200; i++) {
      const sql = `INSERT INTO u VALUES (${i}, ${i % 9 === 0 ? 'NULL' : `'k${i % 37}'`}, ${i % 5 === 0 ? 'NULL' : `${i}.25`})`;
      await db.query(sql);
      await pg.query(sql);
      if (i % 150 === 149) {
        // Reads in the middle of the commits copy the open batch's values out; later commits go on.
        for (const q of ['SELECT count(*), count(s), min(s), max(s), sum(n)::text FROM u', "SELECT id, s FROM u WHERE s = 'k3' ORDER BY id DESC LIMIT 3"]) {
          expect((await db.query(q)).rows, q).toEqual((await pg.query(q, [], { rowMode: 'array' })).rows.map((r) => (r as unknown[]).map((v) => (typeof v === 'bigint' ? Number(v) : v))));
        }
      }
    }
    await db.query("UPDATE u SET s = s || '!' WHERE id % 4 = 0");
    await pg.query("UPDATE u SET s = s || '!' WHERE id % 4 = 0");
    await db.query('DELETE FROM u WHERE id % 6 = 1');
    await pg.query('DELETE FROM u WHERE id % 6 = 1');
    const q = 'SELECT s, count(*), sum(n)::text FROM u GROUP BY s ORDER BY s NULLS FIRST';
    expect((await db.query(q)).rows).toEqual((await pg.query(q, [], { rowMode: 'array' })).rows.map((r) => (r as unknown[]).map((v) => (typeof v === 'bigint' ? Number(v) : v))));
    expect(db.catalog.getMemoryTable('u')).toBeInstanceOf(MemoryTable);
    await db.close();
  });
});

/**
 * Log records as the reused record buffer writes them: small commits (one contiguous record, text
 * written value by value) and large ones (column buffers referenced, text encoded joined when it is
 * ASCII, value by value when not), each read back by replay exactly as committed, and a record that
 * outgrows the reused buffer mid-way.
 */
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { scratchDirs } from './scratch-dirs.js';

const { fresh, crashCopy } = scratchDirs('quire-record-encoding-');

const TEXTS = ['plain', '', 'é', 'naïve café', '日本語', '🙂 smile', "it's", 'x'.repeat(300), 'tab\there'];

describe('log record encoding', () => {
  it('replays small and large commits of ASCII, non-ASCII and NULL text exactly', async () => {
    const dir = fresh();
    const db = await Database.create({ path: dir });
    await db.query('CREATE TABLE t (id int, s text, f float8, b bool)');
    // Large commits: all-ASCII text, then mixed text, each with NULLs.
    await db.query("INSERT INTO t SELECT i, CASE WHEN i % 7 = 0 THEN NULL ELSE 'row-' || i END, i * 0.25, i % 2 = 0 FROM generate_series(1, 5000) i");
    const mixed = TEXTS.map((s, i) => `(${10000 + i}, '${s.replace(/'/g, "''")}', ${i}, true)`);
    await db.query(`INSERT INTO t SELECT g.i + 20000, CASE WHEN g.i % 5 = 0 THEN NULL ELSE v.s END, 1, false FROM generate_series(1, 100) g(i), (VALUES ${TEXTS.map((s) => `('${s.replace(/'/g, "''")}')`).join(', ')}) v(s)`);
    // Small commits, one row each and a few rows each.
    for (const row of mixed) await db.query(`INSERT INTO t VALUES ${row}`);
    await db.query(`INSERT INTO t VALUES ${mixed.join(', ')}`);
    await db.query('INSERT INTO t VALUES (30000, NULL, NULL, NULL)');
    // A record larger than the reused buffer, of rows small enough to be written value by value.
    await db.query(`INSERT INTO t VALUES ${Array.from({ length: 60 }, (_, i) => `(${40000 + i}, '${'ü'.repeat(2000)}${i}', ${i}, false)`).join(', ')}`);
    const q = 'SELECT id, s, f, b FROM t ORDER BY id, s';
    const expected = (await db.query(q)).rows;
    expect(expected.length).toBe(5000 + 900 + 9 + 9 + 1 + 60);
    const replayed = await Database.create({ path: crashCopy(dir), readOnly: true });
    expect((await replayed.query(q)).rows).toEqual(expected);
    await replayed.close();
    await db.close();
    const reopened = await Database.create({ path: dir });
    expect((await reopened.query(q)).rows).toEqual(expected);
    await reopened.close();
  }, 120_000);
});

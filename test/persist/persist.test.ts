/**
 * Database directories: tables and views survive reopening; writes are atomic (a child killed with
 * SIGKILL in the middle of writing leaves the previous committed state, or the new one, never a
 * half-written table).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

const root = mkdtempSync(join(tmpdir(), 'quire-persist-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const fresh = (name: string): string => join(root, name);

describe('database directory', () => {
  it('keeps tables, constraints, sequences and views across reopen', async () => {
    const dir = fresh('basic');
    const db = await Database.create({ path: dir });
    await db.query(`CREATE TABLE t (id serial PRIMARY KEY, name text NOT NULL, n numeric(8,2), at timestamptz, big int8, d date, iv interval, ok bool, r real)`);
    await db.query(`INSERT INTO t (name, n, at, big, d, iv, ok, r) VALUES
      ('a', 1.25, '2024-01-01 00:00:00.000001+00', 9223372036854775807, '2024-02-29', '1 day 02:03:04', true, 0.5),
      ('b', NULL, NULL, NULL, NULL, NULL, NULL, NULL)`);
    await db.query(`CREATE VIEW v AS SELECT name, n * 2 AS n2 FROM t`);
    await db.query(`CREATE TABLE gone (x int)`);
    await db.query(`DROP TABLE gone`);
    const before = await db.query(`SELECT * FROM t ORDER BY id`);
    await db.close();

    const again = await Database.create({ path: dir });
    const after = await again.query(`SELECT * FROM t ORDER BY id`);
    expect(after.rows).toEqual(before.rows);
    expect(after.columns).toEqual(before.columns);
    expect((await again.query(`SELECT * FROM v ORDER BY name`)).rows.map((r) => r.map((x) => (x === null ? null : String(x))))).toEqual([
      ['a', '2.50'],
      ['b', null],
    ]);
    await expect(again.query(`SELECT * FROM gone`)).rejects.toMatchObject({ code: '42P01' });
    // Constraints and the serial's next value came back too.
    await expect(again.query(`INSERT INTO t (name) VALUES (NULL)`)).rejects.toMatchObject({ code: '23502' });
    await again.query(`INSERT INTO t (name) VALUES ('c')`);
    // 4, not 3: as in PostgreSQL, the failed INSERT above consumed a sequence value.
    expect((await again.query(`SELECT id FROM t WHERE name = 'c'`)).rows).toEqual([[4]]);
    await expect(again.query(`INSERT INTO t (id, name) VALUES (1, 'dup')`)).rejects.toMatchObject({ code: '23505' });
    await again.close();
  });

  it('persists UPDATE, DELETE and TRUNCATE; ROLLBACK writes nothing, COMMIT writes once', async () => {
    const dir = fresh('dml');
    const db = await Database.create({ path: dir });
    await db.query(`CREATE TABLE t AS SELECT i AS id FROM generate_series(1, 10) i`);
    await db.query(`UPDATE t SET id = id * 10 WHERE id <= 2`);
    await db.query(`DELETE FROM t WHERE id = 3`);
    await db.query(`BEGIN`);
    await db.query(`DELETE FROM t`);
    await db.query(`ROLLBACK`);
    await db.query(`BEGIN`);
    await db.query(`INSERT INTO t VALUES (100)`);
    // Not committed yet: a reader opening the directory now sees the state before BEGIN.
    expect((await (await Database.create({ path: dir, readOnly: true })).query(`SELECT count(*) FROM t`)).rows).toEqual([[9]]);
    await db.query(`COMMIT`);
    await db.close();
    const again = await Database.create({ path: dir });
    expect((await again.query(`SELECT sum(id)::int, count(*) FROM t`)).rows).toEqual([[10 + 20 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 100, 10]]);
    await again.query(`TRUNCATE t`);
    expect((await (await Database.create({ path: dir, readOnly: true })).query(`SELECT count(*) FROM t`)).rows).toEqual([[0]]);
    await again.close();
  });

  it('removes leftovers of interrupted writes on open', async () => {
    const dir = fresh('leftovers');
    const db = await Database.create({ path: dir });
    await db.query(`CREATE TABLE t AS SELECT 1 AS x`);
    writeFileSync(join(dir, '.t.9.qtb.tmp-123'), 'partial');
    writeFileSync(join(dir, 't.99.qtb'), 'orphan');
    // Files Quire did not name are never deleted.
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    await db.close();
    const again = await Database.create({ path: dir });
    expect((await again.query(`SELECT x FROM t`)).rows).toEqual([[1]]);
    await again.close();
    expect(readdirSync(dir).sort()).toEqual(['manifest.json', 'notes.txt', 't.1.qtb', 'wal']);
  });

  it('survives kill -9 in the middle of a write', async () => {
    const dir = fresh('crash');
    const db = await Database.create({ path: dir });
    await db.query(`CREATE TABLE keep (id int, tag text)`);
    await db.query(`INSERT INTO keep SELECT i, 'initial' FROM generate_series(1, 1000) i`);
    await db.close();
    const child = fileURLToPath(new URL('./crash-child.mjs', import.meta.url));
    // First kill while "keep" is being rewritten, then while the 400k-row "big" is being written.
    for (const target of ['.keep.', '.big.']) {
      const p = spawn(process.execPath, [child, dir, target.replace(/\./g, '')], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve) => p.stdout!.once('data', () => resolve()));
      const t0 = Date.now();
      while (!readdirSync(dir).some((f) => f.startsWith(target) && f.includes('.tmp-')) && Date.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 1));
      expect(readdirSync(dir).some((f) => f.startsWith(target) && f.includes('.tmp-'))).toBe(true);
      p.kill('SIGKILL');
      await new Promise((r) => p.once('exit', r));

      const re = await Database.create({ path: dir });
      // keep: 1000 initial rows plus 1000 per completed round, every round whole.
      const k = (await re.query(`SELECT tag, count(*) FROM keep GROUP BY tag ORDER BY tag`)).rows;
      expect(k.find(([tag]) => tag === 'initial')).toEqual(['initial', 1000]);
      for (const [, n] of k) expect(n).toBe(1000);
      // big: absent, or complete.
      const hasBig = re.listTables().some((t) => t.name === 'big');
      if (hasBig) expect((await re.query(`SELECT count(*), max(id) FROM big`)).rows).toEqual([[400000, 400000]]);
      expect(readdirSync(dir).some((f) => f.includes('.tmp-'))).toBe(false);
      await re.close();
    }
    expect(existsSync(join(dir, 'manifest.json'))).toBe(true);
  }, 120_000);
});

import { beforeAll, describe, expect, it } from 'vitest';
import { ensureParser, parseStatements } from '../../src/sql/parse.js';
import { Database } from '../../src/index.js';

beforeAll(() => ensureParser());

describe('parse cache', () => {
  it('gives every caller its own tree, equal to a fresh parse', () => {
    const sql = "select a, b from t where a > 1 order by b desc limit 3; select 2";
    const first = parseStatements(sql);
    const second = parseStatements(sql); // seen twice: the tree is kept from here
    const third = parseStatements(sql); // from the cache
    expect(third).toEqual(first);
    expect(third.map((s) => s.text)).toEqual(['select a, b from t where a > 1 order by b desc limit 3', 'select 2']);
    expect(third[0]!.stmt).not.toBe(second[0]!.stmt);
    // Changing one caller's tree does not change what the next caller gets.
    (third[0]!.stmt as unknown as { SelectStmt: { limitCount?: unknown } }).SelectStmt.limitCount = undefined;
    expect(parseStatements(sql)).toEqual(first);
  });

  it('keeps the statement text of a rewritten file reference', () => {
    const sql = "select count(*) from 'nowhere/x.csv'";
    for (let i = 0; i < 3; i++) {
      const [s] = parseStatements(sql);
      expect(s!.text).toContain("read_csv('nowhere/x.csv')");
    }
  });

  it('a statement that rewrites its tree gives the same answer every time', async () => {
    // CREATE TABLE pg_temp.x marks its tree TEMP while it runs: a cached tree must not carry that over.
    const db = await Database.create();
    const other = db.connect();
    for (let i = 0; i < 3; i++) {
      await db.query('create table pg_temp.pc (a int)');
      // TEMP: the other session does not see it.
      await expect(other.query('select * from pc')).rejects.toMatchObject({ code: '42P01' });
      await db.query('drop table pc');
    }
    await db.close();
  });

  it('stays bounded under texts that never repeat', () => {
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 20000; i++) parseStatements(`select ${i} as v${i}, '${'x'.repeat(200)}' as pad`);
    for (let i = 0; i < 20000; i++) parseStatements(`select ${i} as v${i}, '${'x'.repeat(200)}' as pad`);
    global.gc?.();
    // 512 entries at most: a few MB, not 40,000 trees.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(64 << 20);
  });
});

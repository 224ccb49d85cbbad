/**
 * ORDER BY on mostly distinct text made by the query, which the Sort holds as UTF-8 bytes while its
 * input arrives (utf8-text-column.ts) and decodes back only for the rows it emits, against PostgreSQL
 * (PGlite): NULLs in either place, DESC, ties broken by later keys, multibyte and 4-byte characters, empty
 * strings, OFFSET, one row, no rows, a key used twice, two held keys; and the fallbacks to strings when a
 * later batch holds a value too long for an exact key, and when the sort spills under memory_limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeText as outcome, pgliteAndQuire, type SqlConnection } from '../harness/connection.js';

let pg: SqlConnection;
let quire: SqlConnection;

beforeAll(async () => {
  const setup = ['CREATE TABLE n (i int, g int)'];
  for (let s = 1; s <= 20000; s += 2000) {
    const vals: string[] = [];
    for (let i = s; i < s + 2000; i++) vals.push(`(${i}, ${(i * 7919) % 101})`);
    setup.push(`INSERT INTO n VALUES ${vals.join(', ')}`);
  }
  ({ pg, q: quire } = await pgliteAndQuire(setup));
}, 300_000);

afterAll(async () => {
  await pg.close?.();
  await quire.close?.();
});

async function agree(sqls: readonly string[]): Promise<void> {
  for (const sql of sqls) {
    const want = await outcome(pg, sql);
    expect(want.startsWith('ERROR'), `${sql}\n${want}`).toBe(false);
    expect(await outcome(quire, sql), sql).toBe(want);
  }
}

/** The sort method EXPLAIN ANALYZE reports for `sql` in Quire. */
async function method(sql: string): Promise<string> {
  const r = await quire.query(`EXPLAIN (FORMAT QUIRE, ANALYZE) ${sql}`);
  const line = r.rows.map((x) => x[0]).find((x) => x !== null && x.startsWith('Sort'));
  return /sort method=([^)]*?)(?:,|\))/.exec(line ?? '')?.[1] ?? '';
}

// Mostly distinct computed text: 'é' and '😀' make 2- and 4-byte UTF-8, every 13th row is NULL, and
// i % 17000 repeats some values (ties broken by i).
const X = "CASE WHEN i % 13 = 0 THEN NULL WHEN i % 3 = 0 THEN 'é' || (i % 17000)::text WHEN i % 5 = 0 THEN '😀' || (i % 17000)::text WHEN i % 7 = 0 THEN '' ELSE 'k' || (i % 17000)::text END";
const DIRS = ['ASC NULLS FIRST', 'ASC NULLS LAST', 'DESC NULLS FIRST', 'DESC NULLS LAST'];

describe('sort on computed text held as UTF-8', () => {
  it('is the path taken for mostly distinct computed text, and not for repeating or stored text', async () => {
    expect(await method(`SELECT x, i FROM (SELECT ${X} AS x, i FROM n) s ORDER BY x, i`)).toBe('normalized-key radix on UTF-8 text');
    expect(await method('SELECT x, i FROM (SELECT (g % 10)::text AS x, i FROM n) s ORDER BY x, i')).not.toContain('UTF-8');
  });

  it('every direction and NULL placement, ties broken by a later key', async () => {
    const sqls: string[] = [];
    for (const d of DIRS) {
      sqls.push(`SELECT x, i FROM (SELECT ${X} AS x, i FROM n) s ORDER BY x ${d}, i`);
      sqls.push(`SELECT x, i FROM (SELECT ${X} AS x, i FROM n) s ORDER BY x ${d}, i DESC OFFSET 19990`);
      sqls.push(`SELECT x, g, i FROM (SELECT ${X} AS x, g, i FROM n) s ORDER BY g DESC, x ${d}, i LIMIT 5000 OFFSET 100`);
    }
    await agree(sqls);
  }, 300_000);

  it('two held keys, a key used twice, one row, no rows', async () => {
    await agree([
      `SELECT x, y, i FROM (SELECT ${X} AS x, 'p' || (i % 9000)::text AS y, i FROM n) s ORDER BY y DESC, x NULLS FIRST, i`,
      `SELECT x, i FROM (SELECT ${X} AS x, i FROM n) s ORDER BY x, x DESC, i`,
      `SELECT x, i FROM (SELECT ${X} AS x, i FROM n WHERE i = 4) s ORDER BY x, i`,
      `SELECT x, i FROM (SELECT ${X} AS x, i FROM n WHERE i < 0) s ORDER BY x, i`,
      `SELECT x, i FROM (SELECT ${X} AS x, i FROM n WHERE i <= 300) s ORDER BY x DESC, i`,
    ]);
  }, 300_000);

  it('falls back to strings when a later batch holds a value longer than an exact key', async () => {
    const long = `SELECT x, i FROM (SELECT CASE WHEN i = 15000 THEN repeat('z', 40) || i::text WHEN i = 15001 THEN repeat('z', 40) ELSE ${X} END AS x, i FROM n) s ORDER BY x DESC, i`;
    await agree([long, `${long} OFFSET 19995`]);
    expect(await method(long)).toBe('normalized-key radix');
  }, 300_000);

  it('falls back to strings when the sort spills under memory_limit', async () => {
    const sql = `SELECT x, i FROM (SELECT ${X} AS x, i FROM n) s ORDER BY x NULLS FIRST, i`;
    const want = await outcome(pg, sql);
    await quire.query("SET memory_limit = '1MB'");
    try {
      expect(await outcome(quire, sql)).toBe(want);
      expect(await method(sql)).toMatch(/^external merge/);
    } finally {
      await quire.query('RESET memory_limit');
    }
  }, 300_000);
});

/**
 * Per-partition Top-N on a computed text partition key that is split into its parts
 * (injective-text-key.ts): `s || ':' || CAST(i AS text)` partitions as the pair (s, i). Against PostgreSQL
 * (PGlite): NULL in either part (one NULL partition with both NULL), text holding the separator and
 * digits, multibyte text, negative integers, the mirrored form, a longer prefix, ties broken by a later
 * key, k of 1 and 3, rank(), every row its own partition, one partition, no rows; and the forms that must
 * not be split because they are not injective: no separator ('ab' || 12 = 'ab1' || 2) and a separator
 * ending in '-' or a digit ('a' || '-' || -1 = 'a-' || '-' || 1).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeText as outcome, pgliteAndQuire, type SqlConnection } from '../harness/connection.js';

let pg: SqlConnection;
let quire: SqlConnection;

const S = ["'ab'", "'ab1'", "'a'", "'a-'", "'x:1'", "'x'", "'é'", "'日本'", "''", 'NULL', "'1:2'", "'-'"];

beforeAll(async () => {
  const vals: string[] = [];
  for (let id = 1; id <= 6000; id++) {
    const s = S[(id * 7) % S.length]!;
    const i = id % 97 === 0 ? 'NULL' : String(((id * 31) % 23) - 11);
    vals.push(`(${id}, ${s}, ${i}, ${(id * 7919) % 1009}, ${id % 5})`);
  }
  ({ pg, q: quire } = await pgliteAndQuire([
    'CREATE TABLE r (id int, s text, i int, v int, w int8)',
    `INSERT INTO r VALUES ${vals.join(', ')}`,
    // Special pairs whose concatenations collide unless split at the right place.
    "INSERT INTO r VALUES (7001, 'ab', 12, 1, 1), (7002, 'ab1', 2, 0, 1), (7003, 'a', -1, 5, 1), (7004, 'a-', 1, 4, 1), (7005, 'x:1', 2, 3, 1), (7006, 'x', 12, 2, 1)",
  ]));
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

const top = (key: string, cond = 'rn = 1', fn = 'row_number()', where = 'true'): string =>
  `SELECT id, s, i, rn FROM (SELECT id, s, i, ${fn} OVER (PARTITION BY ${key} ORDER BY v, id) AS rn FROM r WHERE ${where}) x WHERE ${cond} ORDER BY id`;

describe('computed text partition keys split into their parts', () => {
  it('the split forms agree with PostgreSQL (NULLs, separators in the text, mirrored, longer prefix)', async () => {
    await agree([
      top("s || ':' || CAST(i AS text)"),
      top("s || ':' || CAST(i AS text)", 'rn <= 3'),
      top("s || ' #' || CAST(i % 7 AS text)", 'rn <= 2'),
      top("CAST(i AS text) || ':' || s"),
      top("CAST(w AS text) || '/' || s || ':' || CAST(i AS text)", 'rn <= 2'),
      top("s || '/' || s || ':' || CAST(i AS text)"),
      top("s || ':' || CAST(i AS text)", 'rn <= 2', 'rank()'),
      top("s || ':' || CAST(id AS text)"),
      top("'k' || ':' || CAST(w - w AS text)", 'rn <= 4'),
      top("s || ':' || CAST(i AS text)", 'rn = 1', 'row_number()', 'id < 0'),
      `SELECT count(*) FROM (SELECT row_number() OVER (PARTITION BY s || ':' || CAST(i AS text) ORDER BY v) AS rn FROM r) x WHERE rn = 1`,
    ]);
  }, 300_000);

  it('a NULL in either part is the one NULL partition, as the concatenation is', async () => {
    // Distinct non-NULL concatenations, plus one for NULL: the Top-N keeps a row per partition it sees.
    const want = await outcome(pg, "SELECT count(DISTINCT s || ':' || CAST(i AS text)) + 1 FROM r");
    const r = await quire.query(`EXPLAIN (FORMAT QUIRE, ANALYZE) ${top("s || ':' || CAST(i AS text)")}`);
    const line = r.rows.map((x) => x[0]).find((x) => x !== null && x.includes('TopNRanking')) ?? '';
    expect(line).toContain(`partitions=${want}`);
    // Split: the parts are plain columns, no helper column of concatenated text is projected.
    expect(r.rows.map((x) => x[0]).join('\n')).not.toContain('?rank_key');
  });

  it('the non-injective forms stay one key and agree with PostgreSQL', async () => {
    await agree([
      top('s || CAST(i AS text)'),
      top("s || '-' || CAST(i AS text)"),
      top("s || 'a1' || CAST(i AS text)"),
      top("CAST(i AS text) || '1x' || s"),
      top("CAST(i AS text) || '-' || s"),
    ]);
  }, 300_000);
});

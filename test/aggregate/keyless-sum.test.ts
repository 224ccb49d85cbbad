/**
 * sum() without GROUP BY folds each batch in a local (updateGroup in sum.ts / exact-int-sum.ts) instead
 * of through per-row group ids: checked against PostgreSQL (PGlite) over more rows than a batch, with
 * NULLs, int8 sums that leave and re-enter ±2^53, float8 / float4 sums whose order of additions shows
 * in the result, infinities, NaN, and the overflow error of finite inputs. Float sums read the rows
 * ordered by id: PostgreSQL's heap need not return them in insertion order.
 */
import { describe, expect, it } from 'vitest';
import { agreementSuite, rowsOrError } from '../harness/agree.js';
import { rng } from '../common/pg-helper.js';

const ROWS = 20_000;

function setupSql(seed: number): string[] {
  const r = rng(seed);
  const vals: string[] = [];
  const big = 2 ** 53 - 1;
  for (let i = 1; i <= ROWS; i++) {
    const i4 = r() < 0.1 ? 'NULL' : String(Math.floor(r() * 4294967296) - 2147483648);
    // int8 near ±2^53 (the running sum crosses the safe range both ways), small values in between
    const x = r();
    const i8 = x < 0.1 ? 'NULL' : x < 0.4 ? String((r() < 0.5 ? 1 : -1) * (big - Math.floor(r() * 1000))) : String(Math.floor(r() * 2000) - 1000);
    const f8 = r() < 0.1 ? 'NULL' : String((r() - 0.5) * 10 ** Math.floor(r() * 40 - 20));
    const f4 = r() < 0.1 ? 'NULL' : String(Math.fround((r() - 0.5) * 10 ** Math.floor(r() * 12 - 6)));
    // all NULL but one row: the sum is that row's value, or NULL when it is filtered out
    const one = i === 7777 ? '-0' : 'NULL';
    // never NULL: the batch loops without a NULL mask
    const fn = String((r() - 0.5) * 10 ** Math.floor(r() * 40 - 20));
    const i8n = String((r() < 0.5 ? 1 : -1) * (big - Math.floor(r() * 1000)));
    vals.push(`(${i}, ${i4}, ${i8}, ${f8}, ${f4}, ${one}, ${fn}, ${i8n})`);
  }
  return [
    'CREATE TABLE s (id int, i4 int, i8 bigint, f8 float8, f4 float4, one float8, fn float8, i8n bigint)',
    `INSERT INTO s VALUES ${vals.join(', ')}`,
    'CREATE TABLE o (id int, x float8, y float4)',
    "INSERT INTO o VALUES (1, 1e308, 3e38), (2, 1e308, 3e38), (3, 'Infinity', 'Infinity')",
    'CREATE TABLE p (x float8, y float4)',
    "INSERT INTO p VALUES (1e308, 3e38), ('Infinity', 'Infinity'), (1e308, 3e38), ('-0', '-0')",
    'CREATE TABLE z (x float8, y float4)',
    "INSERT INTO z VALUES ('-0', '-0')",
  ];
}

describe('sum() without GROUP BY vs PostgreSQL', () => {
  const { agree, quire } = agreementSuite(() => setupSql(4242), { pgRejects: 'any', withMessage: true });

  it('integer sums: int4, int8 across ±2^53, with NULLs, several in one statement', async () => {
    await agree([
      'SELECT sum(i4) FROM s',
      'SELECT sum(i8) FROM s',
      'SELECT sum(i8), sum(i4), count(i8), avg(i8) FROM s',
      'SELECT sum(i8) FROM s WHERE i8 > 0',
      'SELECT sum(i8) FROM s WHERE i8 < 0',
      'SELECT sum(i4) FROM s WHERE id > 19990',
      'SELECT sum(i8) FROM s WHERE id < 0',
      'SELECT sum(i8n) FROM s',
      'SELECT sum(i8n), avg(i8n), sum(i8) FROM s',
      'SELECT CAST(sum(x) AS bigint) FROM (SELECT row_number() OVER (ORDER BY id) AS x FROM s) t',
    ]);
  });

  it('float sums keep PostgreSQL order of additions, infinities and NaN', async () => {
    await agree([
      'SELECT sum(f8) FROM (SELECT * FROM s ORDER BY id) s',
      'SELECT sum(f4) FROM (SELECT * FROM s ORDER BY id) s',
      'SELECT sum(f8), sum(f4), sum(f8) FROM (SELECT * FROM s ORDER BY id) s',
      'SELECT sum(one) FROM (SELECT * FROM s ORDER BY id) s',
      'SELECT sum(one) FROM (SELECT * FROM s ORDER BY id) s WHERE id <> 7777',
      "SELECT sum(CASE WHEN id = 5000 THEN 'NaN'::float8 ELSE f8 END) FROM (SELECT * FROM s ORDER BY id) s",
      "SELECT sum(CASE WHEN id = 5000 THEN '-Infinity'::float8 ELSE f8 END) FROM (SELECT * FROM s ORDER BY id) s",
      'SELECT sum(fn) FROM (SELECT * FROM s ORDER BY id) s',
      'SELECT sum(fn), sum(f8), sum(fn) FROM (SELECT * FROM s ORDER BY id) s',
      'SELECT sum(x), sum(y) FROM p',
      'SELECT sum(x), sum(y) FROM z',
      'SELECT sum(x) FROM o WHERE id = 3',
      'SELECT sum(x) FROM o',
      'SELECT sum(y) FROM o',
    ]);
  });

  it('finite inputs that overflow are an error', async () => {
    await agree(['SELECT sum(x) FROM o WHERE id < 3', 'SELECT sum(y) FROM o WHERE id < 3']);
    expect(await rowsOrError(quire(), 'SELECT sum(x) FROM o WHERE id < 3')).toMatch(/^ERROR 22003/);
  });
});

/**
 * corr, covar_pop/covar_samp and regr_* against PostgreSQL through whole statements: GROUP BY, no
 * GROUP BY, FILTER, window frames, mixed argument types, NULLs in either argument, NaN/Infinity and
 * the float overflow error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rng } from '../common/pg-helper.js';
import { SqlDiff } from '../functions/sql-diff.js';

const FNS = ['corr', 'covar_pop', 'covar_samp', 'regr_count', 'regr_avgx', 'regr_avgy', 'regr_sxx', 'regr_syy', 'regr_sxy', 'regr_slope', 'regr_intercept', 'regr_r2'];

let sql: SqlDiff;
beforeAll(async () => {
  const r = rng(20261203);
  const rows: string[] = [];
  for (let id = 0; id < 400; id++) {
    const g = Math.floor(r() * 8);
    const x = r() < 0.1 ? 'null' : String(Math.round((r() - 0.5) * 2000) / 8);
    const y = r() < 0.1 ? 'null' : String(Math.round((r() * 3 + 1) * Number(x === 'null' ? 1 : x) * 100 + (r() - 0.5) * 5000) / 100);
    const i = r() < 0.1 ? 'null' : String(Math.floor((r() - 0.5) * 1e6));
    // A constant-y group (g = 8) and a constant-x group (g = 9) exercise the NULL-on-zero-variance rules.
    rows.push(`(${id}, ${g}, ${x}, ${y}, ${i}, ${r() < 0.5})`);
  }
  for (let id = 400; id < 410; id++) rows.push(`(${id}, 8, ${id}, 5, ${id}, true)`, `(${id + 10}, 9, 3, ${id}, 7, false)`);
  rows.push('(500, 10, 1, 1, 1, true)');
  sql = await SqlDiff.start(
    `create table t (id int4, g int4, x float8, y float8, i int4, b bool);
     insert into t values ${rows.join(', ')};
     create table sp (id int4, x float8, y float8);
     insert into sp values (1, 1, 2), (2, 'NaN', 3), (3, 4, 'Infinity'), (4, '-Infinity', 1), (5, 2, 2), (6, 3, 5)`,
  );
  // Float sums depend on input order: read t in id order and aggregate it with hashing in PostgreSQL.
  await sql.pg.exec('set enable_sort = off');
});
afterAll(async () => {
  await sql.close();
});

const all = (a: string, b: string, over = ''): string => FNS.map((f) => `${f}(${a}, ${b})${over}`).join(', ');

describe('regression aggregates', () => {
  it('result types', async () => {
    expect(await sql.mismatches([`select ${FNS.map((f) => `pg_typeof(${f}(y, x))`).join(', ')} from t`])).toEqual([]);
  });
  it('GROUP BY, no GROUP BY, FILTER, empty input', async () => {
    expect(
      await sql.mismatches([
        `select g, ${all('y', 'x')} from (select * from t order by id) t group by g order by g`,
        `select ${all('y', 'x')} from (select * from t order by id) t`,
        `select g, ${all('x', 'y')} from (select * from t order by id) t group by g order by g`,
        `select g, ${FNS.map((f) => `${f}(y, x) filter (where b)`).join(', ')} from (select * from t order by id) t group by g order by g`,
        `select ${all('y', 'x')} from t where false`,
        `select g, ${all('y', 'x')} from t where id = 500 group by g`,
      ]),
    ).toEqual([]);
  });
  it('integer, numeric and mixed arguments coerce to double precision', async () => {
    expect(
      await sql.mismatches([
        `select g, ${all('i', 'x')} from (select * from t order by id) t group by g order by g`,
        `select g, ${all('i::numeric', 'i::int2 % 100')} from (select * from t order by id) t where i between -3000000 and 3000000 group by g order by g`,
        'select corr(1, 2), covar_samp(x, 2::int8), regr_count(1.5, 2) from t',
      ]),
    ).toEqual([]);
  });
  it('NaN, Infinity and overflow', async () => {
    expect(
      await sql.mismatches([
        `select id, ${all('y', 'x')} from (select id, x, y from sp) s, lateral (select 1) l where false`,
        `select ${all('y', 'x')} from (select * from sp order by id) s`,
        `select ${all('y', 'x')} from (select * from sp where id = 1 or id = 2 order by id) s`,
        `select ${all('y', 'x')} from (select * from sp where id in (3, 5, 6) order by id) s`,
        `select ${all('y', 'x')} from (select * from sp where id = 4) s`,
        `select corr(y, x) from (values (1e200::float8, 1::float8), (-1e200, 2)) v(y, x)`,
        `select covar_pop(y, x) from (values (1::float8, 1e200::float8), (2, -1e200)) v(y, x)`,
        `select regr_sxy(y, x) from (values (1e160::float8, 1e160::float8), (-1e160, -1e160)) v(y, x)`,
        `select regr_count(y, x), regr_sxx(y, x) from (values (1::float8, 'Infinity'::float8), (2, 1)) v(y, x)`,
      ]),
    ).toEqual([]);
  });
  it('as window aggregates', async () => {
    expect(
      await sql.mismatches([
        `select id, ${all('y', 'x', ' over (partition by g order by id)')} from t order by id`,
        `select id, ${all('y', 'x', ' over (order by id rows between 3 preceding and current row)')} from t where id < 120 order by id`,
        // Whole-partition frames in id order: PostgreSQL's sort by g alone would feed rows in an
        // arbitrary order, and float sums depend on it.
        `select id, corr(y, x) over w, regr_slope(y, x) over w, regr_count(y, x) over w from t window w as (partition by g order by id rows between unbounded preceding and unbounded following) order by id`,
        `select id, ${all('y', 'x', ' over (order by id rows between 1 preceding and 1 following)')} from sp order by id`,
      ]),
    ).toEqual([]);
  });
});

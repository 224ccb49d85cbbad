/**
 * regexp_split_to_array, regexp_split_to_table, regexp_matches and current_database against PostgreSQL
 * (PGlite): empty and degenerate matches, flags, 'g', capture groups, NULLs, multibyte text, in FROM and
 * in the select list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlDiff } from './sql-diff.js';

let sql: SqlDiff;
beforeAll(async () => {
  sql = await SqlDiff.start("create table r (id int, s text, p text); insert into r values (1, 'a,b,,c', ','), (2, 'x1y22z', '\\d+'), (3, null, ','), (4, '', ''), (5, 'héllo wörld', 'ö|l+')");
}, 60_000);
afterAll(async () => {
  await sql.close();
});

const lit = (s: string): string => `'${s.replace(/'/g, "''")}'`;

describe('regular-expression splitting and matching', () => {
  it('regexp_split_to_array and regexp_split_to_table on edge cases', async () => {
    const cases: [string, string, string?][] = [
      ['hello world  foo', '\\s+'],
      ['hello', ''],
      ['', ','],
      ['', ''],
      [',a,,b,', ','],
      ['abc', 'x*'],
      ['aXbxc', 'x', 'i'],
      ['a', 'a'],
      ['ab', '(?=b)'],
      ['héllo wörld', 'ö'],
      ['a\nb', '$', 'n'],
      ['a,b', ',', 'g'],
      ['a,b', '(', ''],
    ];
    const sqls: string[] = [];
    for (const [s, p, f] of cases) {
      const args = [lit(s), lit(p), ...(f !== undefined ? [lit(f)] : [])].join(', ');
      sqls.push(`select regexp_split_to_array(${args})`);
      sqls.push(`select x, length(x) from regexp_split_to_table(${args}) as x`);
    }
    expect(await sql.mismatches(sqls)).toEqual([]);
  });

  it('regexp_matches: first or every match, groups, empty matches', async () => {
    const cases: [string, string, string?][] = [
      ['foobarbequebaz', '(bar)(beque)'],
      ['foobarbequebazilbarfbonk', '(b[^b]+)(b[^b]+)', 'g'],
      ['abc', 'x'],
      ['aaa', 'a*', 'g'],
      ['abcabc', 'b', 'g'],
      ['ab', '(a)|(b)', 'g'],
      ['ABab', 'a', 'gi'],
      ['', '', 'g'],
    ];
    const sqls = cases.map(([s, p, f]) => `select m from regexp_matches(${[lit(s), lit(p), ...(f !== undefined ? [lit(f)] : [])].join(', ')}) as m`);
    expect(await sql.mismatches(sqls)).toEqual([]);
  });

  it('over table rows, in the select list, with NULLs', async () => {
    expect(
      await sql.mismatches([
        'select id, regexp_split_to_table(s, p) from r order by 1, 2',
        'select id, regexp_split_to_array(s, p) from r order by 1',
        "select id, regexp_matches(s, p, 'g') from r order by 1, 2",
        'select id, (select count(*) from regexp_split_to_table(s, p)) from r order by 1',
        'select regexp_matches(null, \'a\')',
        'select current_database() = current_catalog, current_database() is not null',
      ]),
    ).toEqual([]);
  });

  it('streams the rows of a long string: counted without holding them, and cancelled by statement_timeout', async () => {
    expect((await sql.db.query("select count(*) from regexp_split_to_table(repeat('ab,', 200000), ',')")).rows).toEqual([[200001]]);
    await sql.db.query("set statement_timeout = '300ms'");
    await expect(sql.db.query("select count(*) from regexp_split_to_table(repeat('a', 50000000), '')")).rejects.toMatchObject({ code: '57014' });
    await sql.db.query('reset statement_timeout');
    expect((await sql.db.query('select 1')).rows).toEqual([[1]]);
  }, 60_000);
});

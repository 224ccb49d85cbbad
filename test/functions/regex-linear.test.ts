/**
 * Regular expressions run on RE2 (linear time) with PostgreSQL's results: a grid of patterns and
 * flags through ~, ~*, !~, regexp_match, regexp_replace, regexp_count, substring(… from …) and
 * SIMILAR TO against PostgreSQL; catastrophic patterns answer at once; patterns only a backtracking
 * engine runs (back references, lookaround, word edges) still answer, under a time bound.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { startEngines, type SqlDiff } from './sql-diff.js';

let sql: SqlDiff;
beforeAll(async () => {
  ({ sql } = await startEngines('select 1'));
});
afterAll(async () => {
  await sql.close();
});

const q = (s: string): string => `'${s.replace(/'/g, "''")}'`;

const PATTERNS = [
  'abc', '^a', 'c$', '^$', 'a.c', 'a*', 'a+b', 'ab?c', 'a{2,3}', '(ab)+', 'a|bc', '[a-c]+', '[^a-c]', '[[:digit:]]+', '[[:alpha:]]+',
  '[[:space:]]', '[[:upper:]][[:lower:]]*', '\\d+', '\\D', '\\w+', '\\W', '\\s', '\\S+', '(\\w+)\\s(\\w+)', '^(a|b)*$', '(a+)+$',
  '(x+x+)+y', '.*', 'é.', '\\.', '[.]', 'A', '\\Aab', 'bc\\Z', '(?i)ABC', '***=a.c', '***:a.c', '(a)(b)?(c)', '[]a]', '\\x41',
];
const VALUES = ['abc', 'ABC', 'aabbcc', 'a.c', 'xxxxxxxxxxxxxxxxxxxx', '', '12 ab', 'héllo wörld', 'line1\nline2', 'ab ab', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaa!', ' '];
const VALUES_SQL = `(values ${VALUES.map((v) => `(${q(v)})`).join(', ')}) t(v)`;

describe('regular expressions match PostgreSQL', () => {
  it('~, ~*, !~ and regexp_match over a grid of patterns and values', async () => {
    const sqls = PATTERNS.map(
      (p) => `select v, v ~ ${q(p)}, v ~* ${q(p)}, v !~ ${q(p)}, regexp_match(v, ${q(p)}), regexp_count(v, ${q(p)}) from ${VALUES_SQL} order by v`,
    );
    expect(await sql.mismatches(sqls)).toEqual([]);
  });

  it('regexp_replace with \\1 and \\& and the g, i, n flags; substring from a pattern', async () => {
    expect(
      await sql.mismatches([
        `select v, regexp_replace(v, '(\\w)(\\w)', '\\2\\1'), regexp_replace(v, '(\\w)(\\w)', '\\2\\1', 'g'), regexp_replace(v, 'A', '<\\&>', 'gi') from ${VALUES_SQL} order by v`,
        `select v, regexp_replace(v, '^l', 'L', 'g'), regexp_replace(v, '^l', 'L', 'gn'), regexp_replace(v, 'e.l', '_', 'g'), regexp_replace(v, 'e.l', '_', 'gn') from ${VALUES_SQL} order by v`,
        `select v, regexp_match(v, '1$', 'n'), regexp_match(v, '^line2', 'n'), regexp_match(v, 'B', 'i') from ${VALUES_SQL} order by v`,
        `select v, substring(v from 'a(b)'), substring(v from '[0-9]+'), substring(v from 'w.r') from ${VALUES_SQL} order by v`,
        `select v, v similar to '%(b|c)%', v similar to 'a%', v similar to '[a-c]*' from ${VALUES_SQL} order by v`,
        "select regexp_replace('aaa', 'a*', 'X', 'g'), regexp_replace('abc', '', '-', 'g'), regexp_replace('😀a😀', 'a|', '.', 'g')",
        "select regexp_match('abc', '('), regexp_match('abc', 'a{3,2}')",
        "select 'abc' ~ '[[:nope:]]'",
        "select regexp_replace('a', 'a', 'b', 'z')",
      ]),
    ).toEqual([]);
  });

  it('patterns only a backtracking engine runs answer as PostgreSQL does', async () => {
    expect(
      await sql.mismatches([
        "select regexp_match('abab', '(ab)\\1'), 'abcabc' ~ '^(abc)\\1$', 'abcabd' ~ '^(abc)\\1$'",
        "select regexp_match('foo bar', '\\mbar'), regexp_match('foobar', '\\mbar'), regexp_match('foo bar', 'foo\\M')",
        "select 'foo bar' ~ 'o\\y', 'foo bar' ~ 'o\\Y'",
        "select regexp_replace('xaay', '(a)\\1', '[\\1]')",
        "select 'ab' ~ 'a(?=b)', 'ac' ~ 'a(?=b)', 'ac' ~ 'a(?!b)'",
      ]),
    ).toEqual([]);
  });
});

describe('bounded time', () => {
  it('the catastrophic pattern answers false at once', async () => {
    const db = await Database.create();
    const t0 = performance.now();
    const r = await db.query("select 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!' ~ '(a+)+$' as m, repeat('a', 100000) || '!' ~ '(a|aa)+$' as n");
    expect(r.rows).toEqual([[false, false]]);
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it('a catastrophic back-reference pattern fails with 2201B after its time bound, and the engine goes on', async () => {
    const db = await Database.create();
    await db.query("select 'abab' ~ '(ab)\\1'"); // starts the worker
    const t0 = performance.now();
    await expect(db.query("select 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!' ~ '^(a*)*\\1$'")).rejects.toMatchObject({
      code: '2201B',
      message: 'invalid regular expression: regular expression is too complex',
    });
    expect(performance.now() - t0).toBeLessThan(1000);
    expect((await db.query("select 'abab' ~ '(ab)\\1' as m")).rows).toEqual([[true]]);
  });
});

/** regexp_match, similar_to_escape and SIMILAR TO / NOT SIMILAR TO [ESCAPE] against PostgreSQL. */
import { afterAll, beforeAll, describe as group, expect, it } from 'vitest';
import { compareAll, Pg, txt } from './harness.js';
import { startEngines, type SqlDiff } from './sql-diff.js';

let pg: Pg;
let sql: SqlDiff;
beforeAll(async () => {
  ({ pg, sql } = await startEngines(
    "create table s (v text, p text, e text); insert into s values ('abc', 'a%', '\\'), ('a_c', 'a#_c', '#'), (null, '%', '!'), ('xyz', null, ''), ('100%', '100!%', '!'), ('', '', null)",
  ));
});
afterAll(async () => {
  await sql.close();
});

const q = (s: string): string => `'${s.replace(/'/g, "''")}'`;

group('regexp_match', () => {
  it('groups, whole match, unmatched groups, flags, errors', async () => {
    const cases = [
      ['foobarbequebaz', 'bar.*que'],
      ['foobarbequebaz', '(bar)(beque)'],
      ['foobarbequebaz', '(bar)|(xyz)'],
      ['abc', 'x'],
      ['ABC', 'b'],
      ['', ''],
      ['a,b c', '(\\w+)\\W+(\\w+)'],
      ['line1\nline2', '^line2'],
      ['héllo wörld', '(\\w+) (w.)'],
      ['abc', '(a)(b)?(x)?'],
      ['abc', '('],
      ['a{b}', '\\{(.)\\}'],
    ].map(([s, p]) => ({ name: 'regexp_match', args: [txt(s!), txt(p!)] }));
    const flagged = [
      ['ABC', 'b', 'i'],
      ['line1\nline2', '^line2', 'n'],
      ['abc', 'b', 'g'],
      ['abc', 'b', 'z'],
      ['a.c', '.', 'q'],
      ['a b', 'a b', 'x'],
      ['abc', 'B', ''],
    ].map(([s, p, f]) => ({ name: 'regexp_match', args: [txt(s!), txt(p!), txt(f!)] }));
    const nulls = [
      { name: 'regexp_match', args: [txt(null), txt('a')] },
      { name: 'regexp_match', args: [txt('a'), txt(null)] },
      { name: 'regexp_match', args: [txt('a'), txt('a'), txt(null)] },
    ];
    expect(await compareAll(pg, [...cases, ...flagged, ...nulls])).toEqual([]);
  });
  it('through the engine: text[] result, subscripts, nulls', async () => {
    expect(
      await sql.mismatches([
        "select regexp_match('foobarbequebaz', '(bar)(beque)')",
        "select (regexp_match('foobarbequebaz', '(bar)(beque)'))[2], regexp_match('x', 'y') is null",
        "select regexp_match('abc', '(a)(x)?')",
        "select regexp_match('a b', '\\s')",
        "select regexp_match(v, 'b|_') from s order by v nulls first",
        "select regexp_match('abc', 'b', 'g')",
      ]),
    ).toEqual([]);
  });
});

group('similar_to_escape and SIMILAR TO', () => {
  const PATTERNS = [
    'abc', 'a%', '%b%', '_b_', 'a|b', '(a|b)c', 'a*', 'a+', 'a?', 'a{2}', 'a{2,}', '[abc]', '[^abc]', '[]a]', '[^]a]',
    '[a-c]%', '%.%', '%$%', '^a', 'a\\%', 'a\\_', '\\\\', '[\\]', 'a\\"b\\"c', 'a\\"b\\"c\\"d', '\\"%\\"', '%\\', '[[:digit:]]+', '\\d+', '(ab)+',
    '[^^]', '[a^]', '',
  ];
  const VALUES = ['abc', 'a', 'aa', 'b', 'bc', 'ac', 'a%', 'a_', '\\', 'a.c', 'x$y', '^a', '123', ']', '^', '', 'ABC', 'a\nb'];
  it('similar_to_escape matches PostgreSQL text for text', async () => {
    const cases = [
      ...PATTERNS.map((p) => ({ name: 'similar_to_escape', args: [txt(p)] })),
      ...PATTERNS.map((p) => ({ name: 'similar_to_escape', args: [txt(p.replace(/\\/g, '#')), txt('#')] })),
      ...PATTERNS.map((p) => ({ name: 'similar_to_escape', args: [txt(p), txt('')] })),
      { name: 'similar_to_escape', args: [txt('a'), txt('ab')] },
      { name: 'similar_to_escape', args: [txt('aéb'), txt('é')] },
      { name: 'similar_to_escape', args: [txt('a'), txt(null)] },
      { name: 'similar_to_escape', args: [txt(null)] },
    ];
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('SIMILAR TO results over a grid of values and patterns', async () => {
    const sqls: string[] = [];
    for (const p of PATTERNS) {
      sqls.push(`select v, v similar to ${q(p)}, v not similar to ${q(p)} from (values ${VALUES.map((v) => `(${q(v)})`).join(', ')}) t(v) order by v`);
    }
    expect(await sql.mismatches(sqls)).toEqual([]);
  });
  it('ESCAPE clause, NULLs, columns, errors', async () => {
    expect(
      await sql.mismatches([
        "select 'a_c' similar to 'a#_c' escape '#', 'abc' similar to 'a#_c' escape '#', 'a_c' similar to 'a_c' escape ''",
        "select 'a%' similar to 'a!%' escape '!', 'ab' similar to 'a!%' escape '!'",
        "select 'abc' similar to 'a%' escape null, null similar to 'a', 'a' similar to null",
        "select 'abc' similar to 'a' escape 'xy'",
        "select 'abc' similar to 'a\\\"b\\\"c\\\"d\\\"e'",
        "select 'abc' similar to '(a'",
        "select v, p, e, v similar to p, v similar to p escape e, v not similar to p escape e from s order by v nulls first, p",
        "select count(*) from s where v similar to '%c'",
        "select 'ABC' similar to 'abc', 'abc' similar to 'a__', 'abcd' similar to 'a__'",
      ]),
    ).toEqual([]);
  });
});

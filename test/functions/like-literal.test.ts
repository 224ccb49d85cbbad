/**
 * LIKE patterns whose only wildcards are '%' at the ends ('abc%', '%abc', '%abc%', 'abc'), matched as
 * prefix, suffix, substring or equality tests, against PostgreSQL (PGlite): over a table column (the
 * per-row path) and with the shapes that must leave that path ('_', '%' inside, escapes, a trailing
 * escape, ILIKE, NOT LIKE, ESCAPE, COLLATE "C").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlDiff } from './sql-diff.js';

let sql: SqlDiff;

const SETUP = `
CREATE TABLE w (i int, s text);
INSERT INTO w SELECT i, CASE WHEN i % 9 = 0 THEN NULL ELSE 'user-' || i END FROM generate_series(1, 12000) AS g(i);
INSERT INTO w VALUES (-1, 'ab%'), (-2, 'ab\\x'), (-3, 'ab_c'), (-4, 'abc'), (-5, '😀bc'), (-6, 'x😀'), (-7, 'ÉCLAIR'),
  (-8, 'éclair'), (-9, ''), (-10, 'AB%'), (-11, 'a%b%c'), (-12, 'user-99'), (-13, 'USER-99x'), (-14, '%'), (-15, 'ab\\'), (-16, 'e' || chr(769) || 'clair');
`;

beforeAll(async () => {
  sql = await SqlDiff.start(SETUP);
}, 60_000);
afterAll(async () => {
  await sql.close();
});

const PATTERNS = [
  'user-99%', 'user-99', '%99', '%-99%', 'ab%%', '%%ab', 'ab\\%', 'ab\\%%', 'ab\\\\%', '%\\%', '%\\_%', 'ab_%', 'a%c', '_b%',
  '😀%', '%😀', '%😀%', 'é%', 'É%', 'ab\\', 'ab\\\\x', '\\a\\b%', '', '%', '%%', 'abc', 'e%clair',
];

describe('LIKE with literal patterns', () => {
  it('LIKE, NOT LIKE, ILIKE, NOT ILIKE over a column', async () => {
    const qs: string[] = [];
    for (const p of PATTERNS) {
      const lit = `'${p.replace(/'/g, "''")}'`;
      qs.push(`SELECT count(*), min(s), max(s), count(*) FILTER (WHERE s NOT LIKE ${lit}) FROM w WHERE s LIKE ${lit}`);
      qs.push(`SELECT count(*), min(s), max(s), count(*) FILTER (WHERE s NOT ILIKE ${lit}) FROM w WHERE s ILIKE ${lit}`);
    }
    expect(await sql.mismatches(qs)).toEqual([]);
  });

  it('ESCAPE, COLLATE "C", a pattern per row, and a trailing escape', async () => {
    const qs = [
      "SELECT count(*) FROM w WHERE s LIKE 'ab#%%' ESCAPE '#'",
      "SELECT count(*) FROM w WHERE s LIKE 'ab#_%' ESCAPE '#'",
      "SELECT count(*) FROM w WHERE s LIKE 'user-1%' ESCAPE ''",
      "SELECT count(*) FROM w WHERE s COLLATE \"C\" LIKE 'user-1%'",
      "SELECT count(*) FROM w WHERE s LIKE CASE WHEN i % 2 = 0 THEN 'user-1%' ELSE '%9' END",
      "SELECT count(*) FROM w WHERE s LIKE CASE WHEN i % 2 = 0 THEN 'user-1%' ELSE 'user-2_' END",
      "SELECT count(*) FROM w WHERE s LIKE 'ab\\'",
      "SELECT s LIKE 'ab\\' FROM w WHERE i = -1",
      "SELECT s LIKE 'ab\\' FROM w WHERE i = -15",
    ];
    expect(await sql.mismatches(qs)).toEqual([]);
  });
});

/** Built-in functions called in named and mixed notation (make_interval(days => 3), …) against PostgreSQL. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlDiff } from './sql-diff.js';

let sql: SqlDiff;
beforeAll(async () => {
  sql = await SqlDiff.start();
}, 60_000);
afterAll(async () => {
  await sql.close();
});

describe('named notation for built-in functions', () => {
  it('fills parameters by name, defaults before the last one given', async () => {
    expect(
      await sql.mismatches([
        'select make_interval(days => 3)',
        'select make_interval(1, days => 2, secs => 1.5)',
        'select make_interval(hours => 2, mins => 30)',
        'select make_interval(years => 1, months => 2, weeks => 3, days => 4, hours => 5, mins => 6, secs => 7.25)',
        'select make_interval(days => null)',
        'select make_date(year => 2024, month => 2, day => 29)',
        'select make_date(2024, day => 1, month => 3)',
        'select make_timestamp(2024, 1, 2, hour => 3, min => 4, sec => 5.5)',
        "select make_timestamptz(2024, 1, 2, 3, 4, 5, timezone => 'UTC')",
        'select make_interval(days => g) from generate_series(1, 3) g',
      ]),
    ).toEqual([]);
  });

  it('refuses unknown, repeated, conflicting and missing names as PostgreSQL does', async () => {
    for (const q of ['select make_interval(dayz => 3)', 'select make_interval(1, years => 2)', "select upper(x => 'a')", 'select make_date(year => 2024, month => 2)']) {
      expect(await sql.ours(q), q).toMatchObject({ error: '42883' });
      expect(await sql.theirs(q), q).toMatchObject({ error: '42883' });
    }
    expect(await sql.ours('select make_interval(days => 3, days => 4)')).toMatchObject({ error: '42601' });
  });
});

/**
 * LIKE patterns with '_' or '%' inside (src/functions/scalar/support/like.ts, runs between the '%'s, each
 * taken at its leftmost match) against PostgreSQL's MatchText algorithm kept beside them, on random
 * patterns and texts over an alphabet with escapes, a two-unit character (a surrogate pair) and an
 * accented letter; then over a table column against PGlite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { like, likeByMatchText } from '../../src/functions/scalar/support/like.js';
import { rng } from '../common/pg-helper.js';
import { SqlDiff } from './sql-diff.js';

const outcome = (f: () => boolean): string => {
  try {
    return String(f());
  } catch (e) {
    return (e as Error).message;
  }
};

describe('LIKE runs', () => {
  it('agree with MatchText on 100,000 random pattern/text pairs', () => {
    const r = rng(5);
    const pick = (xs: readonly string[]): string => xs[Math.floor(r() * xs.length)]!;
    const textChars = ['a', 'b', 'a', 'b', 'c', 'é', '😀', '%', '_'];
    const patChars = ['a', 'b', 'c', '%', '%', '_', '_', '\\', 'é', '😀'];
    const wrong: string[] = [];
    for (let t = 0; t < 100_000; t++) {
      let p = '';
      const pl = Math.floor(r() * 9);
      for (let i = 0; i < pl; i++) p += pick(patChars);
      let s = '';
      const sl = Math.floor(r() * 11);
      for (let i = 0; i < sl; i++) s += pick(textChars);
      const mine = outcome(() => like(s, p));
      const ref = outcome(() => likeByMatchText(s, p));
      if (mine !== ref && wrong.length < 10) wrong.push(`'${s}' LIKE '${p}': ${mine}, MatchText ${ref}`);
    }
    expect(wrong).toEqual([]);
  });

  it('agree on long texts where a run matches late or many times', () => {
    const s = 'ab'.repeat(500) + 'x😀y' + 'ab'.repeat(500);
    for (const p of ['%a_b%x_y%', '%b_a%', '%x__%', '%_😀_%', 'ab%b_x%', '%ab_', '%_b', '_%_', '%x_y%ab%ab%ab', '%ba_ba%', 'a%b%x%y%a%b']) {
      expect(like(s, p), p).toBe(likeByMatchText(s, p));
      expect(like(s + 'z', p), p).toBe(likeByMatchText(s + 'z', p));
    }
  });
});

describe('LIKE runs over a column, against PostgreSQL', () => {
  let sql: SqlDiff;
  beforeAll(async () => {
    sql = await SqlDiff.start(`
CREATE TABLE w (i int, s text);
INSERT INTO w SELECT i, CASE WHEN i % 11 = 0 THEN NULL ELSE md5(i::text) || CASE WHEN i % 7 = 0 THEN '😀é' ELSE '' END END FROM generate_series(1, 6000) AS g(i);
INSERT INTO w VALUES (-1, 'a😀c'), (-2, 'ac'), (-3, 'a_c'), (-4, ''), (-5, '😀'), (-6, 'ab%cd');
`);
  }, 180_000);
  afterAll(async () => {
    await sql?.close();
  });

  it('LIKE, NOT LIKE, ILIKE with _ and inner %', async () => {
    const qs: string[] = [];
    for (const p of ['a_c%', '%a%e%', '%1_2%', '_😀_', '%😀_', 'a%c', '%b%%d', '__', '%_', '_%_%e_', '%a\\%c%', '%0%0%0%', 'A_C%', '%A%E%']) {
      qs.push(`SELECT count(*) FILTER (WHERE s LIKE '${p}'), count(*) FILTER (WHERE s NOT LIKE '${p}'), count(*) FILTER (WHERE s ILIKE '${p}'), min(s) FILTER (WHERE s LIKE '${p}') FROM w`);
    }
    expect(await sql.mismatches(qs)).toEqual([]);
  });
});

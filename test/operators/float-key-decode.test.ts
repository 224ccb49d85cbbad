/**
 * A sort on one double key of 65,536+ rows returns the key column decoded from its sorted IEEE images
 * instead of gathered through the permutation. The decoded values must be the very values (NaN aside,
 * which has one image), NULLs where NULLS FIRST / LAST put them, in every direction; a column holding
 * -0 must not be decoded (its image is 0's). Checked against a stable JavaScript sort in PostgreSQL's
 * float8 order.
 */
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { rng } from '../common/pg-helper.js';

const N = 100_000;

function pgCompare(a: number | null, b: number | null, nullsFirst: boolean): number {
  if (a === null || b === null) return a === b ? 0 : (a === null) === nullsFirst ? -1 : 1;
  const an = Number.isNaN(a);
  const bn = Number.isNaN(b);
  if (an || bn) return an === bn ? 0 : an ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function column(seed: number, withNegativeZero: boolean, withNulls: boolean): (number | null)[] {
  const r = rng(seed);
  const specials = [NaN, Infinity, -Infinity, 0, Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE, -Number.MAX_VALUE, 1.5, -1.5];
  if (withNegativeZero) specials.push(-0);
  return Array.from({ length: N }, () => {
    const x = r();
    if (withNulls && x < 0.05) return null;
    if (x < 0.15) return specials[Math.floor(r() * specials.length)]!;
    if (x < 0.4) return Math.floor(r() * 50) - 25;
    return (r() - 0.4) * 10 ** Math.floor(r() * 12 - 4);
  });
}

describe('double sort keys decoded in sorted order', () => {
  for (const [name, negZero, nulls] of [
    ['no NULLs, no -0', false, false],
    ['NULLs, no -0', false, true],
    ['NULLs and -0 (gathered, not decoded)', true, true],
  ] as const) {
    it(`${name}: values and ids match a stable sort in every direction and NULL placement`, async () => {
      const f = column(name.length, negZero, nulls);
      const db = await Database.create();
      db.registerColumns('d', { id: Int32Array.from({ length: N }, (_, i) => i), f }, { id: 'integer', f: 'double precision' });
      for (const desc of [false, true]) {
        for (const nullsFirst of [false, true]) {
          const sql = `SELECT f, id FROM d ORDER BY f${desc ? ' DESC' : ''} NULLS ${nullsFirst ? 'FIRST' : 'LAST'}`;
          const got = (await db.query(sql)).rows as [number | null, number][];
          const ids = Array.from({ length: N }, (_, i) => i);
          // Stable: ties keep input order in both directions, as the engine's sort does.
          ids.sort((a, b) => {
            const av = f[a]!;
            const bv = f[b]!;
            if (av === null || bv === null) return pgCompare(av, bv, nullsFirst);
            return desc ? pgCompare(bv, av, nullsFirst) : pgCompare(av, bv, nullsFirst);
          });
          let bad = 0;
          for (let i = 0; i < N; i++) {
            const [gv, gid] = got[i]!;
            const want = f[ids[i]!]!;
            const same = want === null ? gv === null : Number.isNaN(want) ? Number.isNaN(gv as number) : Object.is(gv, want);
            // Peers may come in another order only if the sort is unstable, which it must not be.
            if (!same || gid !== ids[i]) bad++;
          }
          expect(bad, sql).toBe(0);
        }
      }
      await db.close();
    }, 120_000);
  }
});

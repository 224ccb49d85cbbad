/**
 * The unique index's set of keys of several columns (first part, rest) against a JS Set of the pairs
 * over long random sequences of insert/delete/has: integer first parts dense enough that many share a
 * slot's cluster (deletion shifts the rest of a cluster back, moving each first part's rests along),
 * many rests per first part (held as a KeySet of their own, emptied and refilled), text first parts,
 * and rests that are integers and texts alike ('5' and 5 are different rests).
 */
import { describe, expect, it } from 'vitest';
import { KeyPairSet } from '../../src/storage/key-pair-set.js';

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

type Part = number | string;

const DOMAINS: readonly [string, (r: () => number) => Part, (r: () => number) => Part][] = [
  ['dense int firsts, one or two text rests each', (r) => Math.floor(r() * 400), (r) => `s${Math.floor(r() * 2)}`],
  ['few int firsts, many rests each', (r) => Math.floor(r() * 5), (r) => (r() < 0.5 ? Math.floor(r() * 60) : `t${Math.floor(r() * 60)}`)],
  ['firsts past 2^32 sharing low bits', (r) => 2 ** 32 * Math.floor(r() * 200) + Math.floor(r() * 2), (r) => Math.floor(r() * 3)],
  ['text firsts', (r) => `f${Math.floor(r() * 100)}`, (r) => (r() < 0.5 ? `${Math.floor(r() * 3)}` : Math.floor(r() * 3))],
  ['int and text firsts mixed, empty texts', (r) => (r() < 0.5 ? Math.floor(r() * 50) : ['', '0', '1', ','][Math.floor(r() * 4)]!), (r) => ['', ' ', '0', 0, 1][Math.floor(r() * 5)]!],
];

const id = (f: Part, r: Part): string => JSON.stringify([f, r]);

describe('KeyPairSet', () => {
  for (const [name, first, rest] of DOMAINS) {
    it(`agrees with a Set of pairs: ${name}`, () => {
      for (const seed of [1, 2, 3]) {
        const rnd = seeded(seed);
        const ks = new KeyPairSet(seed === 3 ? 1000 : 0);
        const ref = new Map<string, [Part, Part]>();
        for (let step = 0; step < 20000; step++) {
          const f = first(rnd);
          const r = rest(rnd);
          const op = rnd();
          if (op < 0.45) {
            expect(ks.insert(f, r)).toBe(!ref.has(id(f, r)));
            ref.set(id(f, r), [f, r]);
          } else if (op < 0.75) {
            ks.delete(f, r);
            ref.delete(id(f, r));
          } else expect(ks.has(f, r)).toBe(ref.has(id(f, r)));
          if (step % 997 === 0) {
            expect(ks.size).toBe(ref.size);
            for (const [a, b] of ref.values()) expect(ks.has(a, b)).toBe(true);
          }
        }
        expect(ks.size).toBe(ref.size);
        for (const [a, b] of ref.values()) expect(ks.has(a, b)).toBe(true);
      }
    });
  }

  it('grows past a million pairs, reserved or not, and keeps them all', () => {
    for (const reserved of [false, true]) {
      const ks = new KeyPairSet();
      if (reserved) ks.reserve(1_100_000);
      let fresh = 0;
      for (let i = 0; i < 1_100_000; i++) if (ks.insert(i * 7 - 500_000, `row-${i}`)) fresh++;
      expect(fresh).toBe(1_100_000);
      expect(ks.size).toBe(1_100_000);
      expect(ks.insert(7 * 12345 - 500_000, 'row-12345')).toBe(false);
      expect(ks.has(7 * 12345 - 500_000, 'row-12346')).toBe(false);
      expect(ks.has(7 * 12345 - 500_000 + 1, 'row-12345')).toBe(false);
    }
  });
});

/**
 * The unique index's key set against a JS Set over long random sequences of insert/add/delete/has:
 * dense and sparse integers, negatives, integers past 2^32 and up to 2^53, -0's neighbours and tagged
 * text, with deletions in the middle of probe clusters (backward shifting must keep every key findable).
 */
import { describe, expect, it } from 'vitest';
import { KeySet } from '../../src/storage/key-set.js';

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const DOMAINS: readonly [string, (r: () => number) => number | string][] = [
  ['dense small ints', (r) => Math.floor(r() * 300)],
  ['negatives and zero', (r) => Math.floor(r() * 200) - 100],
  ['multiples of 2^20 (same low bits)', (r) => Math.floor(r() * 200) * 2 ** 20],
  ['past 2^32', (r) => 2 ** 32 + Math.floor(r() * 500) * 2 ** 32 + Math.floor(r() * 3)],
  ['near 2^53', (r) => Number.MAX_SAFE_INTEGER - Math.floor(r() * 400)],
  ['text and ints mixed', (r) => (r() < 0.5 ? `string:k${Math.floor(r() * 150)}` : Math.floor(r() * 150))],
];

describe('KeySet', () => {
  for (const [name, key] of DOMAINS) {
    it(`agrees with Set: ${name}`, () => {
      for (const seed of [1, 2, 3]) {
        const rnd = seeded(seed);
        const ks = new KeySet(seed === 3 ? 1000 : 0);
        const ref = new Set<number | string>();
        for (let step = 0; step < 20000; step++) {
          const k = key(rnd);
          const op = rnd();
          if (op < 0.35) {
            expect(ks.insert(k)).toBe(!ref.has(k));
            ref.add(k);
          } else if (op < 0.5) {
            ks.add(k);
            ref.add(k);
          } else if (op < 0.75) {
            ks.delete(k);
            ref.delete(k);
          } else expect(ks.has(k)).toBe(ref.has(k));
          if (step % 997 === 0) {
            expect(ks.size).toBe(ref.size);
            for (const x of ref) expect(ks.has(x)).toBe(true);
          }
        }
        expect(ks.size).toBe(ref.size);
      }
    });
  }

  it('grows past a million keys and keeps them all', () => {
    const ks = new KeySet();
    let fresh = 0;
    for (let i = 0; i < 1_200_000; i++) if (ks.insert(i * 3 - 600_000)) fresh++;
    expect(fresh).toBe(1_200_000);
    expect(ks.size).toBe(1_200_000);
    let found = 0;
    for (let i = -600_000; i < 3_000_000; i++) if (ks.has(i)) found++;
    expect(found).toBe(1_200_000);
    expect(ks.insert(0)).toBe(false);
  });

  it('reserves room at once and keeps the keys it had', () => {
    const ks = new KeySet();
    for (let i = 0; i < 1000; i++) ks.insert(i * 7);
    ks.insert('text:a');
    ks.reserve(500_000);
    for (let i = 0; i < 1000; i++) expect(ks.has(i * 7)).toBe(true);
    expect(ks.has(1)).toBe(false);
    expect(ks.has('text:a')).toBe(true);
    let fresh = 0;
    for (let i = 0; i < 500_000; i++) if (ks.insert(i * 7 + 1)) fresh++;
    expect(fresh).toBe(500_000);
    expect(ks.size).toBe(501_001);
    // Reserving less than the room left changes nothing.
    ks.reserve(10);
    expect(ks.has(7 * 999)).toBe(true);
    expect(ks.insert(7 * 999 + 1)).toBe(false);
  });
});

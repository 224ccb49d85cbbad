/**
 * The shared UTF-8 check against the platform's strict decoder (which accepts exactly well-formed
 * UTF-8) on random byte strings made mostly of near-valid sequences.
 */
import { describe, expect, it } from 'vitest';
import { firstInvalidUtf8, utf8SequenceLength } from '../../src/common/utf8-bytes.js';
import { rng } from './pg-helper.js';

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const decodes = (b: Uint8Array): boolean => {
  try {
    strict.decode(b);
    return true;
  } catch {
    return false;
  }
};

describe('firstInvalidUtf8', () => {
  it('agrees with a strict decoder on 20,000 random byte strings, and points at the first bad sequence', () => {
    const r = rng(7);
    // Lead bytes at the edges of every range, continuation bytes at theirs, ASCII and NUL.
    const leads = [0x00, 0x41, 0x7f, 0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff];
    const conts = [0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0];
    for (let t = 0; t < 20_000; t++) {
      const bytes: number[] = [];
      const n = 1 + Math.floor(r() * 6);
      for (let k = 0; k < n; k++) {
        const lead = leads[Math.floor(r() * leads.length)]!;
        bytes.push(lead);
        const len = utf8SequenceLength(lead);
        // Usually the announced number of continuation bytes, sometimes one fewer.
        const m = len - 1 - (r() < 0.1 ? 1 : 0);
        for (let j = 0; j < m; j++) bytes.push(r() < 0.8 ? 0x80 + Math.floor(r() * 64) : conts[Math.floor(r() * conts.length)]!);
      }
      const b = Uint8Array.from(bytes);
      const bad = firstInvalidUtf8(b, 0, b.length, false);
      expect(bad === -1, `${bytes.map((x) => x.toString(16))}`).toBe(decodes(b));
      if (bad !== -1) {
        expect(decodes(b.subarray(0, bad))).toBe(true);
        // No valid sequence starts there, of any length that fits.
        for (let l = 1; l <= 4 && bad + l <= b.length; l++) expect(decodes(b.subarray(bad, bad + l)) && l === utf8SequenceLength(b[bad]!)).toBe(false);
      }
      const withNul = firstInvalidUtf8(b, 0, b.length, true);
      const nul = b.indexOf(0);
      expect(withNul).toBe(nul >= 0 && (bad === -1 || nul < bad) ? nul : bad);
    }
  });

  it('checks only [from, to): a sequence cut by `to` is invalid', () => {
    const b = Buffer.from('aé日😀', 'utf8');
    expect(firstInvalidUtf8(b, 0, b.length, true)).toBe(-1);
    expect(firstInvalidUtf8(b, 0, 2, true)).toBe(1);
    expect(firstInvalidUtf8(b, 2, b.length, true)).toBe(2);
    expect(firstInvalidUtf8(b, 3, 6, true)).toBe(-1);
    expect(firstInvalidUtf8(b, 3, 9, true)).toBe(6);
  });
});

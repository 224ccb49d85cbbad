/**
 * The WebAssembly number kernel of read_csv against JavaScript's own conversion: every field it does
 * not list as an exception must hold exactly Number(text) (the sign of zero included), and the
 * fields the JavaScript fast paths refuse (empty, quoted, signs where not allowed, too many digits,
 * anything else) must be exceptions.
 */
import { describe, expect, it } from 'vitest';
import { csvNumberKernel, KERNEL_BYTES } from '../../src/storage/csv-number-kernel.js';

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One column of fields, one per row, laid out as a scanner batch (with `pad` bytes before the first). */
function batch(fields: readonly string[], quoted: ReadonlySet<number> = new Set(), pad = 0) {
  const text = Buffer.from('#'.repeat(pad) + fields.join('\n') + '\n', 'latin1');
  const starts = new Int32Array(fields.length);
  const ends = new Int32Array(fields.length);
  const flags = new Uint8Array(fields.length);
  let at = pad;
  fields.forEach((f, r) => {
    starts[r] = at;
    ends[r] = at + f.length;
    flags[r] = quoted.has(r) ? 1 : 0;
    at += f.length + 1;
  });
  return { buf: text, scannedFrom: pad, scannedTo: text.length, width: 1, starts, ends, flags };
}

function run(fields: readonly string[], maxDigits: number, quoted?: ReadonlySet<number>, pad = 0): { values: number[]; exceptions: Set<number> } {
  const k = csvNumberKernel()!;
  expect(k.load(batch(fields, quoted, pad), fields.length)).toBe(true);
  const n = k.run(0, fields.length, maxDigits);
  return { values: Array.from(k.values.subarray(0, fields.length)), exceptions: new Set(k.exceptions.subarray(0, n)) };
}

const DECIMAL = /^-?(\d+\.?\d*|\.\d+)$/;

describe('csv number kernel', () => {
  it('is available (WebAssembly)', () => {
    expect(csvNumberKernel()).not.toBeNull();
  });

  it('reads doubles exactly as Number() does, and leaves every other spelling to the caller', () => {
    const r = rng(5);
    const fields: string[] = ['', '-', '.', '-.', '+1', '1e5', '1.2.3', ' 1', '1 ', 'NaN', 'Infinity', '0x10', '5.', '.5', '-.5', '-0', '-0.0', '0',
      '9007199254740991', '9007199254740992', '9007199254740993', '18446744073709551615', '9999999999999999999', '0.9999999999999999999',
      '1234567890123456789', '12345678901234567890', '0.00000000000000000000001', '1.0000000000000000000000', '1'.repeat(25)];
    for (let i = 0; i < 20000; i++) {
      const kind = r();
      if (kind < 0.4) fields.push(String((r() - 0.5) * 10 ** Math.floor(r() * 12 - 4)));
      else if (kind < 0.7) {
        // 1 … 20 digits with the point anywhere, after up to three leading zeros.
        const n = 1 + Math.floor(r() * 20);
        let d = '';
        for (let j = 0; j < n; j++) d += String(Math.floor(r() * 10));
        const at = Math.floor(r() * (n + 1));
        fields.push((r() < 0.3 ? '-' : '') + '0'.repeat(Math.floor(r() * 4)) + d.slice(0, at) + (at < n || r() < 0.2 ? '.' : '') + d.slice(at));
      } else if (kind < 0.9) fields.push(String(Math.floor(r() * 1e6)));
      else fields.push(String(r()).slice(0, 1 + Math.floor(r() * 19)));
    }
    let taken = 0;
    const refused = new Set<string>();
    // Batches of up to 4096 rows (a scan's), starting anywhere in the buffer.
    for (let from = 0; from < fields.length; from += 4000) {
      const part = fields.slice(from, from + 4000);
      const quoted = new Set([7, 8]);
      const { values, exceptions } = run(part, 0, quoted, from % 13);
      part.forEach((f, i) => {
        if (exceptions.has(i)) {
          refused.add(f);
          return;
        }
        taken++;
        expect(DECIMAL.test(f) && f.replace(/^-/, '').length <= 24, f).toBe(true);
        expect(quoted.has(i)).toBe(false);
        expect(Object.is(values[i], Number(f)), `${f}: ${values[i]} vs ${Number(f)}`).toBe(true);
      });
    }
    // Plain decimals of up to 19 digits all go through the kernel (17-digit mantissas too), but for
    // the rare one whose rounding it cannot be sure of.
    const eligible = fields.filter((f) => DECIMAL.test(f) && f.replace(/[-.]/g, '').length <= 19);
    const left = eligible.filter((f) => refused.has(f));
    expect(left.length).toBeLessThan(eligible.length / 1000);
    expect(taken).toBeGreaterThan(eligible.length - left.length - 2);
    for (const f of ['', '-', '.', '-.', '+1', '1e5', '1.2.3', ' 1', '1 ', 'NaN', 'Infinity', '0x10', '1'.repeat(25)]) expect(refused.has(f), f).toBe(true);
  });

  it('reads integers of up to the column type\'s digits, with a sign', () => {
    const fields = ['0', '-0', '+7', '-7', '123456789', '-123456789', '1234567890', '+', '-', '', '1.0', '12a', '999999999999999', '1000000000000000', '00012', ' 5'];
    const quoted = new Set([fields.length]);
    fields.push('42');
    for (const [maxDigits, accepted] of [
      [4, ['0', '-0', '+7', '-7']],
      [9, ['0', '-0', '+7', '-7', '123456789', '-123456789', '00012']],
      [15, ['0', '-0', '+7', '-7', '123456789', '-123456789', '1234567890', '999999999999999', '00012']],
    ] as const) {
      const { values, exceptions } = run(fields, maxDigits, quoted);
      const took = fields.filter((_, i) => !exceptions.has(i));
      expect(took).toEqual(accepted);
      fields.forEach((f, i) => {
        // An integer has no negative zero: '-0' is 0.
        if (!exceptions.has(i)) expect(values[i]).toBe(Number(f) + 0);
      });
    }
  });

  it('refuses a batch larger than its memory', () => {
    const k = csvNumberKernel()!;
    const big = batch(['1'.repeat(KERNEL_BYTES)]);
    expect(k.load(big, 1)).toBe(false);
  });
});

/** timetz values carried in cursor tokens (keyset positions) come back equal, and forged ones are refused. */
import { describe, expect, it } from 'vitest';
import { decodeValue, encodeValue } from '../../src/cursor/value-codec.js';
import { TimeTz } from '../../src/common/time-of-day.js';

describe('cursor value codec: time types', () => {
  it('round-trips timetz and time', () => {
    const v = new TimeTz(36_000_000_001, -19_800);
    const back = decodeValue(JSON.parse(JSON.stringify(encodeValue(v)))) as TimeTz;
    expect(back).toBeInstanceOf(TimeTz);
    expect(back.compare(v)).toBe(0);
    expect(back.toString()).toBe('10:00:00.000001-05:30');
    expect(decodeValue(JSON.parse(JSON.stringify(encodeValue(86_400_000_000))))).toBe(86_400_000_000);
  });
  it('refuses a malformed timetz', () => {
    expect(() => decodeValue({ z: [1.5, 0] })).toThrow();
    expect(() => decodeValue({ z: [1] })).toThrow();
  });
});

/**
 * bit and bit varying values: strings of '0'/'1', one character per bit (see types.ts). The typmod of
 * bit(n) / bit varying(n) is n itself, as in PostgreSQL.
 */
import { QuireError } from './errors.js';
import type { DataType } from './types.js';

/** bit_in / varbit_in: binary digits, or an 'x'/'X' prefix and hex digits (four bits each). */
export function parseBitString(s: string, t: DataType, explicit = false): string {
  let bits: string;
  if (s.length > 0 && (s[0] === 'x' || s[0] === 'X')) {
    bits = '';
    for (let i = 1; i < s.length; i++) {
      const d = parseInt(s[i]!, 16);
      if (Number.isNaN(d)) throw new QuireError('22P02', `"${s[i]}" is not a valid hexadecimal digit`);
      bits += d.toString(2).padStart(4, '0');
    }
  } else {
    const b = s.length > 0 && (s[0] === 'b' || s[0] === 'B') ? s.slice(1) : s;
    for (let i = 0; i < b.length; i++) {
      const c = b[i];
      if (c !== '0' && c !== '1') throw new QuireError('22P02', `"${String.fromCodePoint(b.codePointAt(i)!)}" is not a valid binary digit`);
    }
    bits = b;
  }
  return applyBitTypmod(bits, t, explicit);
}

/**
 * A bit(n) value must have exactly n bits (an explicit cast pads with zeros or truncates instead);
 * a bit varying(n) at most n (an explicit cast truncates).
 */
export function applyBitTypmod(bits: string, t: DataType, explicit: boolean): string {
  const n = t.typmod;
  if (n < 0) return bits;
  if (t.name === 'bit') {
    if (bits.length === n) return bits;
    if (explicit) return bits.length > n ? bits.slice(0, n) : bits.padEnd(n, '0');
    throw new QuireError('22026', `bit string length ${bits.length} does not match type bit(${n})`);
  }
  if (bits.length <= n) return bits;
  if (explicit) return bits.slice(0, n);
  throw new QuireError('22001', `bit string too long for type bit varying(${n})`);
}

function checkSameLength(a: string, b: string, op: string): void {
  if (a.length !== b.length) throw new QuireError('22026', `cannot ${op} bit strings of different sizes`);
}

export function bitAnd(a: string, b: string): string {
  checkSameLength(a, b, 'AND');
  let r = '';
  for (let i = 0; i < a.length; i++) r += a[i] === '1' && b[i] === '1' ? '1' : '0';
  return r;
}

export function bitOr(a: string, b: string): string {
  checkSameLength(a, b, 'OR');
  let r = '';
  for (let i = 0; i < a.length; i++) r += a[i] === '1' || b[i] === '1' ? '1' : '0';
  return r;
}

export function bitXor(a: string, b: string): string {
  checkSameLength(a, b, 'XOR');
  let r = '';
  for (let i = 0; i < a.length; i++) r += a[i] !== b[i] ? '1' : '0';
  return r;
}

export function bitNot(a: string): string {
  let r = '';
  for (let i = 0; i < a.length; i++) r += a[i] === '1' ? '0' : '1';
  return r;
}

/** Wire form (bit_send): int32 bit count, then the bits packed high bit first, zero padded. */
export function packBits(bits: string): Buffer {
  const out = Buffer.alloc(4 + ((bits.length + 7) >> 3));
  out.writeInt32BE(bits.length, 0);
  for (let i = 0; i < bits.length; i++) if (bits[i] === '1') out[4 + (i >> 3)]! |= 0x80 >> (i & 7);
  return out;
}

export function unpackBits(b: Uint8Array): string {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const n = dv.getInt32(0);
  if (n < 0 || 4 + ((n + 7) >> 3) > b.byteLength) throw new QuireError('22P03', 'invalid length in external bit string');
  let r = '';
  for (let i = 0; i < n; i++) r += (b[4 + (i >> 3)]! & (0x80 >> (i & 7))) !== 0 ? '1' : '0';
  return r;
}

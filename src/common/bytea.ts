/**
 * bytea values and their text forms. A bytea is held as a string with one UTF-16 unit per byte
 * (see types.ts), which keeps memcmp order, hashing and concatenation those of strings.
 */
import { QuireError } from './errors.js';

const HEX = '0123456789abcdef';

/** The bytes of a string's UTF-8 encoding, as a bytea value. */
export function utf8Bytes(s: string): string {
  // Pure ASCII is its own UTF-8 encoding: the common case needs no copy.
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  return ascii ? s : Buffer.from(s, 'utf8').toString('latin1');
}

export function byteaFromBuffer(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');
}

export function byteaToBuffer(v: string): Buffer {
  return Buffer.from(v, 'latin1');
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/** Hex digits (whitespace between pairs allowed, as PostgreSQL's hex_decode) from `start`. */
export function decodeHex(s: string, start = 0): string {
  const out: number[] = [];
  let i = start;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    const hi = hexValue(c);
    if (hi < 0) throw new QuireError('22023', `invalid hexadecimal digit: "${String.fromCodePoint(s.codePointAt(i)!)}"`);
    i++;
    if (i >= s.length) throw new QuireError('22023', 'invalid hexadecimal data: odd number of digits');
    const lo = hexValue(s.charCodeAt(i));
    if (lo < 0) throw new QuireError('22023', `invalid hexadecimal digit: "${String.fromCodePoint(s.codePointAt(i)!)}"`);
    out.push((hi << 4) | lo);
    i++;
  }
  return fromBytes(out);
}

function fromBytes(out: number[]): string {
  let r = '';
  for (let k = 0; k < out.length; k += 8192) r += String.fromCharCode(...out.slice(k, k + 8192));
  return r;
}

function isOct(c: number, max = 55): boolean {
  return c >= 48 && c <= max;
}

/** The escape format: `\\` is a backslash, `\ooo` an octal byte, anything else its UTF-8 bytes. */
export function decodeEscape(s: string): string {
  const b = utf8Bytes(s);
  const out: number[] = [];
  for (let i = 0; i < b.length; ) {
    const c = b.charCodeAt(i);
    if (c !== 92) {
      out.push(c);
      i++;
      continue;
    }
    if (i + 1 < b.length && b.charCodeAt(i + 1) === 92) {
      out.push(92);
      i += 2;
    } else if (i + 3 < b.length && isOct(b.charCodeAt(i + 1), 51) && isOct(b.charCodeAt(i + 2)) && isOct(b.charCodeAt(i + 3))) {
      out.push(((b.charCodeAt(i + 1) - 48) << 6) | ((b.charCodeAt(i + 2) - 48) << 3) | (b.charCodeAt(i + 3) - 48));
      i += 4;
    } else {
      throw new QuireError('22P02', 'invalid input syntax for type bytea');
    }
  }
  return fromBytes(out);
}

/** byteain: `\x` then hex digits, else the escape format. */
export function parseBytea(s: string): string {
  if (s.length >= 2 && s.charCodeAt(0) === 92 && (s.charCodeAt(1) === 120 || s.charCodeAt(1) === 88)) return decodeHex(s, 2);
  return decodeEscape(s);
}

export function encodeHex(v: string): string {
  let r = '';
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    r += HEX[c >> 4]! + HEX[c & 15]!;
  }
  return r;
}

/** byteaout with bytea_output = hex (PostgreSQL's default). */
export function formatBytea(v: string): string {
  return '\\x' + encodeHex(v);
}

/** encode(…, 'escape'): a backslash doubled, NUL and bytes above 0x7f as `\ooo`. */
export function encodeEscape(v: string): string {
  let r = '';
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c === 92) r += '\\\\';
    else if (c === 0 || c >= 0x80) r += '\\' + c.toString(8).padStart(3, '0');
    else r += v[i];
  }
  return r;
}

/** encode(…, 'base64'): lines of 76 characters, as PostgreSQL's pg_base64_encode. */
export function encodeBase64(v: string): string {
  const s = Buffer.from(v, 'latin1').toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < s.length; i += 76) lines.push(s.slice(i, i + 76));
  return lines.join('\n');
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * decode(…, 'base64'), as PostgreSQL's pg_base64_decode: whitespace ignored, '=' allowed only as the
 * third or fourth symbol of a group (where it ends the data: later groups still decode but add no
 * bytes), and the input must end on a whole group.
 */
export function decodeBase64(s: string): string {
  const out: number[] = [];
  let buf = 0;
  let pos = 0;
  let end = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isSpace(c)) continue;
    let d: number;
    if (c === 61) {
      if (end === 0) {
        if (pos === 2) end = 1;
        else if (pos === 3) end = 2;
        else throw new QuireError('22023', 'unexpected "=" while decoding base64 sequence');
      }
      d = 0;
    } else {
      d = c > 127 ? -1 : B64.indexOf(s[i]!);
      if (d < 0) throw new QuireError('22023', `invalid symbol "${String.fromCodePoint(s.codePointAt(i)!)}" found while decoding base64 sequence`);
    }
    buf = (buf << 6) | d;
    if (++pos === 4) {
      out.push((buf >> 16) & 255);
      if (end === 0 || end > 1) out.push((buf >> 8) & 255);
      if (end === 0 || end > 2) out.push(buf & 255);
      buf = 0;
      pos = 0;
    }
  }
  if (pos !== 0) throw new QuireError('22023', 'invalid base64 end sequence', { hint: 'Input data is missing padding, is truncated, or is otherwise corrupted.' });
  return fromBytes(out);
}

/**
 * to_number(text, template) as PostgreSQL's formatting.c reads it: one pass over the template, each
 * digit position taking at most one input digit (or the decimal point), signs read where the template
 * or the position of the digits allows, other template characters skipping input. The collected
 * string is then numeric input with the template's precision and scale, divided by 10^n for V.
 * PostgreSQL steps through the input a byte at a time in places, so this reads its UTF-8 bytes.
 */
import { QuireError } from '../../../common/errors.js';
import { Numeric } from '../../../common/numeric.js';
import {
  F_BRACKET,
  F_DECIMAL,
  F_EEEE,
  F_FILLMODE,
  F_LSIGN,
  F_MINUS,
  F_MULTI,
  F_PLUS,
  F_ROMAN,
  LSIGN_PRE,
  parseNumberTemplate,
  type NumDesc,
} from './number-template.js';

const encoder = new TextEncoder();
const ch = (c: string): number => c.charCodeAt(0);
const isDigit = (b: number): boolean => b >= 0x30 && b <= 0x39;
/** C isspace in the C locale. */
const isSpace = (b: number): boolean => b === 0x20 || (b >= 0x09 && b <= 0x0d);
const DATA_CHARS = new Set([...'0123456789.,+-'].map(ch));

const ROMAN_VALUE: Record<string, number> = { I: 1, V: 5, X: 10, L: 50, C: 100, D: 500, M: 1000 };
const VALID_SUBTRACTION = new Set(['IV', 'IX', 'XL', 'XC', 'CD', 'CM']);
const MAX_ROMAN_LEN = 15;

/** Length of the UTF-8 sequence a lead byte starts (1 for a stray continuation byte), as pg_mblen. */
function mbLen(b: number): number {
  if ((b & 0x80) === 0) return 1;
  if ((b & 0xe0) === 0xc0) return 2;
  if ((b & 0xf0) === 0xe0) return 3;
  if ((b & 0xf8) === 0xf0) return 4;
  return 1;
}

export function toNumber(value: string, fmt: string): Numeric | null {
  if (fmt === '') return null;
  const t = parseNumberTemplate(fmt);
  const d: NumDesc = { ...t.desc };
  if ((d.flag & F_EEEE) !== 0) throw new QuireError('0A000', '"EEEE" not supported for input');
  const has = (f: number): boolean => (d.flag & f) !== 0;
  const inp = encoder.encode(value);
  const len = inp.length;
  const at = (i: number): number => (i < len ? inp[i]! : 0);
  // num[0] is the sign slot (' ' until a sign is read), then digits and at most one '.'.
  const num: string[] = [' '];
  let ip = 0;
  let readPre = 0;
  let readPost = 0;
  let readDec = false;

  const eatNonData = (n: number): void => {
    while (n-- > 0) {
      if (ip >= len || DATA_CHARS.has(inp[ip]!)) break;
      ip = Math.min(len, ip + mbLen(inp[ip]!));
    }
  };

  // PostgreSQL's NUM_numpart_from_char; the caller then steps one byte.
  const digitPosition = (isDigitKey: boolean): void => {
    let isread = false;
    if (ip >= len) return;
    if (inp[ip] === 0x20) ip++;
    if (ip >= len) return;
    if (num[0] === ' ' && isDigitKey && readPre + readPost === 0) {
      const c = inp[ip]!;
      if (has(F_LSIGN) && d.lsign === LSIGN_PRE) {
        if (c === ch('-') || c === ch('+')) {
          ip++;
          num[0] = String.fromCharCode(c);
        }
      } else if (c === ch('-') || (has(F_BRACKET) && c === ch('<'))) {
        num[0] = '-';
        ip++;
      } else if (c === ch('+')) {
        num[0] = '+';
        ip++;
      }
    }
    if (ip >= len) return;
    const c = inp[ip]!;
    if (isDigit(c)) {
      if (readDec && readPost === d.post) return;
      num.push(String.fromCharCode(c));
      if (readDec) readPost++;
      else readPre++;
      isread = true;
    } else if (has(F_DECIMAL) && !readDec && c === ch('.')) {
      num.push('.');
      readDec = true;
      isread = true;
    }
    if (ip >= len) return;
    // A sign right behind the last digit ('FM9.999999MI' reads '5.01-').
    if (num[0] === ' ' && readPre + readPost > 0) {
      if (has(F_LSIGN) && isread && ip + 1 < len && !isDigit(at(ip + 1))) {
        const s = at(ip + 1);
        if (s === ch('-') || s === ch('+')) {
          ip++;
          num[0] = String.fromCharCode(s);
        }
      } else if (!isread && !has(F_LSIGN) && (has(F_PLUS) || has(F_MINUS))) {
        if (c === ch('-') || c === ch('+')) num[0] = String.fromCharCode(c);
      }
    }
  };

  for (const n of t.nodes) {
    if (ip >= len) break;
    if (n.key === null) {
      // A literal template character skips one input character, whatever it is.
      ip = Math.min(len, ip + mbLen(inp[ip]!));
      continue;
    }
    switch (n.key) {
      case '9':
      case '0':
      case '.':
      case 'D':
        digitPosition(n.key === '9' || n.key === '0');
        ip++;
        break;
      case ',':
      case 'G':
        if (has(F_FILLMODE)) break;
        if (inp[ip] === ch(',')) ip++;
        break;
      case 'L':
        eatNonData(1);
        break;
      case 'RN':
      case 'rn': {
        const r = romanToInt();
        if (r < 0) throw new QuireError('22P02', 'invalid Roman numeral');
        const s = String(r);
        num.push(...s);
        d.pre = s.length;
        d.post = 0;
        break;
      }
      case 'TH':
      case 'th':
        if (has(F_ROMAN) || has(F_DECIMAL)) break;
        eatNonData(2);
        break;
      case 'MI':
      case 'PL':
      case 'SG': {
        const c = inp[ip]!;
        const take = n.key === 'MI' ? c === ch('-') : n.key === 'PL' ? c === ch('+') : c === ch('-') || c === ch('+');
        if (take) {
          num[0] = String.fromCharCode(c);
          ip++;
        } else eatNonData(1);
        break;
      }
      default:
        break;
    }
  }

  function romanToInt(): number {
    while (ip < len && isSpace(inp[ip]!)) ip++;
    const chars: string[] = [];
    while (chars.length < MAX_ROMAN_LEN && ip < len) {
      const c = String.fromCharCode(inp[ip]!).toUpperCase();
      if (ROMAN_VALUE[c] === undefined || inp[ip]! >= 0x80) break;
      chars.push(c);
      ip++;
    }
    if (chars.length === 0) return -1;
    let result = 0;
    let repeat = 1;
    let vCount = 0;
    let lCount = 0;
    let dCount = 0;
    let subtracted = 0;
    // V, L and D may appear once and never before a larger numeral.
    const tooLarge = (v: number): boolean => (vCount > 0 && v >= 5) || (lCount > 0 && v >= 50) || (dCount > 0 && v >= 500);
    const count = (c: string): void => {
      if (c === 'V') vCount++;
      else if (c === 'L') lCount++;
      else if (c === 'D') dCount++;
    };
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      const v = ROMAN_VALUE[c]!;
      if (subtracted > 0 && v >= subtracted) return -1;
      if (tooLarge(v)) return -1;
      count(c);
      if (i === chars.length - 1) {
        result += v;
        break;
      }
      const next = chars[i + 1]!;
      const nv = ROMAN_VALUE[next]!;
      if (v < nv) {
        if (!VALID_SUBTRACTION.has(c + next) || repeat > 1) return -1;
        if (tooLarge(nv)) return -1;
        count(next);
        i++;
        repeat = 1;
        subtracted = v;
        result += nv - v;
      } else {
        if (c === next) {
          if (++repeat > 3) return -1;
        } else repeat = 1;
        result += v;
      }
    }
    return result;
  }

  if (num.length > 1 && num[num.length - 1] === '.') num.pop();
  const scale = readPost;
  const precision = d.pre + d.multi + scale;
  let result = Numeric.parse(num.join('')).applyTypmod(precision, scale);
  if (has(F_MULTI)) result = result.mul(Numeric.fromInt(10).power(Numeric.fromInt(-d.multi)));
  return result;
}

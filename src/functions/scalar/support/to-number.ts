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
  type NumTemplate,
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

/** UTF-8 bytes; plain ASCII (the usual input) without the cost of a TextEncoder call. */
function utf8(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return encoder.encode(s);
    out[i] = c;
  }
  return out;
}

export function toNumber(value: string, fmt: string): Numeric | null {
  if (fmt === '') return null;
  const t = parseNumberTemplate(fmt);
  const d: NumDesc = { ...t.desc };
  if ((d.flag & F_EEEE) !== 0) throw new QuireError('0A000', '"EEEE" not supported for input');
  const r = new Reader(d, utf8(value));
  r.run(t);
  return r.result();
}

const MINUS = ch('-');
const PLUS = ch('+');
const COMMA = ch(',');
const POINT = ch('.');
const SPACE = ch(' ');
const LT = ch('<');

class Reader {
  /** num[0] is the sign slot (' ' until a sign is read), then digits and at most one '.'. */
  private readonly num: string[] = [' '];
  private ip = 0;
  private readonly len: number;
  private readPre = 0;
  private readPost = 0;
  private readDec = false;

  constructor(
    private readonly d: NumDesc,
    private readonly inp: Uint8Array,
  ) {
    this.len = inp.length;
  }

  private has(f: number): boolean {
    return (this.d.flag & f) !== 0;
  }

  run(t: NumTemplate): void {
    const inp = this.inp;
    const len = this.len;
    for (const n of t.nodes) {
      if (this.ip >= len) break;
      if (n.key === null) {
        // A literal template character skips one input character, whatever it is.
        this.ip = Math.min(len, this.ip + mbLen(inp[this.ip]!));
        continue;
      }
      switch (n.key) {
        case '9':
        case '0':
        case '.':
        case 'D':
          this.digitPosition(n.key === '9' || n.key === '0');
          this.ip++;
          break;
        case ',':
        case 'G':
          if (this.has(F_FILLMODE)) break;
          if (inp[this.ip] === COMMA) this.ip++;
          break;
        case 'L':
          this.eatNonData(1);
          break;
        case 'RN':
        case 'rn': {
          const r = this.romanToInt();
          if (r < 0) throw new QuireError('22P02', 'invalid Roman numeral');
          const s = String(r);
          this.num.push(...s);
          this.d.pre = s.length;
          this.d.post = 0;
          break;
        }
        case 'TH':
        case 'th':
          if (this.has(F_ROMAN) || this.has(F_DECIMAL)) break;
          this.eatNonData(2);
          break;
        case 'MI':
        case 'PL':
        case 'SG': {
          const c = inp[this.ip]!;
          const take = n.key === 'MI' ? c === MINUS : n.key === 'PL' ? c === PLUS : c === MINUS || c === PLUS;
          if (take) {
            this.num[0] = String.fromCharCode(c);
            this.ip++;
          } else this.eatNonData(1);
          break;
        }
        default:
          break;
      }
    }
  }

  /** Numeric input of the collected string with the template's precision and scale; V divides back. */
  result(): Numeric {
    const num = this.num;
    if (num.length > 1 && num[num.length - 1] === '.') num.pop();
    const scale = this.readPost;
    const precision = this.d.pre + this.d.multi + scale;
    // Without any digit the text is invalid input, reported as PostgreSQL shows it (sign slot and all).
    const body = num.slice(1).join('');
    const r = (body === '' ? Numeric.parse(num.join('')) : Numeric.parse(num[0] === '-' ? '-' + body : body)).applyTypmod(precision, scale);
    return this.has(F_MULTI) ? r.mul(Numeric.fromInt(10).power(Numeric.fromInt(-this.d.multi))) : r;
  }

  private eatNonData(n: number): void {
    while (n-- > 0) {
      if (this.ip >= this.len || DATA_CHARS.has(this.inp[this.ip]!)) break;
      this.ip = Math.min(this.len, this.ip + mbLen(this.inp[this.ip]!));
    }
  }

  /** PostgreSQL's NUM_numpart_from_char; the caller then steps one byte. */
  private digitPosition(isDigitKey: boolean): void {
    const inp = this.inp;
    const len = this.len;
    const num = this.num;
    let isread = false;
    if (this.ip >= len) return;
    if (inp[this.ip] === SPACE) this.ip++;
    if (this.ip >= len) return;
    if (num[0] === ' ' && isDigitKey && this.readPre + this.readPost === 0) {
      const c = inp[this.ip]!;
      if (this.has(F_LSIGN) && this.d.lsign === LSIGN_PRE) {
        if (c === MINUS || c === PLUS) {
          this.ip++;
          num[0] = String.fromCharCode(c);
        }
      } else if (c === MINUS || (this.has(F_BRACKET) && c === LT)) {
        num[0] = '-';
        this.ip++;
      } else if (c === PLUS) {
        num[0] = '+';
        this.ip++;
      }
    }
    if (this.ip >= len) return;
    const c = inp[this.ip]!;
    if (isDigit(c)) {
      if (this.readDec && this.readPost === this.d.post) return;
      num.push(String.fromCharCode(c));
      if (this.readDec) this.readPost++;
      else this.readPre++;
      isread = true;
    } else if (this.has(F_DECIMAL) && !this.readDec && c === POINT) {
      num.push('.');
      this.readDec = true;
      isread = true;
    }
    // A sign right behind the last digit ('FM9.999999MI' reads '5.01-').
    if (num[0] === ' ' && this.readPre + this.readPost > 0) {
      const next = this.ip + 1 < len ? inp[this.ip + 1]! : 0;
      if (this.has(F_LSIGN) && isread && this.ip + 1 < len && !isDigit(next)) {
        if (next === MINUS || next === PLUS) {
          this.ip++;
          num[0] = String.fromCharCode(next);
        }
      } else if (!isread && !this.has(F_LSIGN) && (this.has(F_PLUS) || this.has(F_MINUS))) {
        if (c === MINUS || c === PLUS) num[0] = String.fromCharCode(c);
      }
    }
  }

  /** PostgreSQL's roman_to_int: a standard-form numeral 1..3999, or -1. */
  private romanToInt(): number {
    const inp = this.inp;
    while (this.ip < this.len && isSpace(inp[this.ip]!)) this.ip++;
    const chars: string[] = [];
    while (chars.length < MAX_ROMAN_LEN && this.ip < this.len) {
      const b = inp[this.ip]!;
      const c = b < 0x80 ? String.fromCharCode(b).toUpperCase() : '';
      if (ROMAN_VALUE[c] === undefined) break;
      chars.push(c);
      this.ip++;
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
}

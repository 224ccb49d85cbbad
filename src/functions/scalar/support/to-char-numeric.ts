/**
 * to_char(number, template) as PostgreSQL's formatting.c does it: each input type first becomes a
 * digit string rounded to the template's decimal places (or '#' fill when the integer part does not
 * fit, a Roman numeral for RN, a d.ddde±XX string for EEEE), then one pass over the template lays it
 * out: leading blanks or zeros, the sign where S / MI / PL / SG / PR put it (or just before the first
 * digit), group separators only once digits have started, FM dropping padding and trailing zeros.
 * Locale patterns use the C locale, as Quire does elsewhere: D is '.', G is ',', L is a blank.
 * PostgreSQL writes past the end of the digit string when the template has more positions than the
 * string (a float limited to 15 significant digits), which ends its output there; so does this.
 */
import { QuireError } from '../../../common/errors.js';
import { Numeric } from '../../../common/numeric.js';
import { checkInt4, int4Overflow, int8Overflow, toBig, type Int8 } from './int.js';
import { printfExp, printfFixed } from './float-printf.js';
import { rint } from './float.js';
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
  F_ZERO,
  LSIGN_POST,
  LSIGN_PRE,
  parseNumberTemplate,
  type NumDesc,
  type NumKey,
  type NumTemplate,
} from './number-template.js';

const INT4_MAX = 2147483647;
/** FLT_DIG and DBL_DIG: the significant digits PostgreSQL prints of a float4 / float8. */
const FLT_DIG = 6;
const DBL_DIG = 15;

/** The value as PostgreSQL hands it to the layout pass. */
interface Digits {
  /** Unsigned digits with an optional '.', or '#' fill, a Roman numeral, or a whole EEEE string. */
  str: string;
  /** Blank or zero positions in front of the digits. */
  preSpaces: number;
  sign: '+' | '-' | '';
}

const ROMAN_ONES = ['I', 'II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX'];
const ROMAN_TENS = ['X', 'XX', 'XXX', 'XL', 'L', 'LX', 'LXX', 'LXXX', 'XC'];
const ROMAN_HUNDREDS = ['C', 'CC', 'CCC', 'CD', 'D', 'DC', 'DCC', 'DCCC', 'CM'];

/** 1..3999 as upper-case Roman numerals; anything else is fifteen '#'. */
function intToRoman(n: number): string {
  if (n > 3999 || n < 1) return '#'.repeat(15);
  const th = Math.floor(n / 1000);
  const h = Math.floor(n / 100) % 10;
  const t = Math.floor(n / 10) % 10;
  const o = n % 10;
  return 'M'.repeat(th) + (h ? ROMAN_HUNDREDS[h - 1] : '') + (t ? ROMAN_TENS[t - 1] : '') + (o ? ROMAN_ONES[o - 1] : '');
}

/** Digits that do not fit before the point: '#' in every position, the point kept. */
function overflowFill(d: NumDesc): string {
  return '#'.repeat(d.pre) + '.' + '#'.repeat(d.post);
}

/** EEEE of NaN or an infinity: '#' in the mantissa and exponent positions. */
function eeeeFill(d: NumDesc): string {
  const chars = '#'.repeat(d.pre + d.post + 6).split('');
  chars[0] = ' ';
  chars[d.pre + 1] = '.';
  return chars.join('');
}

/** Split off the sign, then pad or overflow by the digits before the point. */
function fitDigits(d: NumDesc, text: string): Digits {
  const neg = text.startsWith('-');
  const str = neg ? text.slice(1) : text;
  const point = str.indexOf('.');
  const preLen = point >= 0 ? point : str.length;
  const sign = neg ? '-' : '+';
  if (preLen < d.pre) return { str, preSpaces: d.pre - preLen, sign };
  if (preLen > d.pre) return { str: overflowFill(d), preSpaces: 0, sign };
  return { str, preSpaces: 0, sign };
}

/** An integer's digits followed by `post` zeros after the point. */
function fitInteger(d: NumDesc, text: string): Digits {
  const neg = text.startsWith('-');
  const digits = neg ? text.slice(1) : text;
  const sign = neg ? '-' : '+';
  const str = d.post > 0 ? `${digits}.${'0'.repeat(d.post)}` : digits;
  if (digits.length < d.pre) return { str, preSpaces: d.pre - digits.length, sign };
  if (digits.length > d.pre) return { str: overflowFill(d), preSpaces: 0, sign };
  return { str, preSpaces: 0, sign };
}

/** PostgreSQL's numeric_out_sci: the significand rounded half away from zero to `scale` places. */
function numericSci(x: Numeric, scale: number): string {
  const neg = x.sign() < 0;
  const coef = neg ? -x.coef : x.coef;
  let exp = 0;
  let sig: bigint;
  if (coef === 0n) sig = 0n;
  else {
    const n = coef.toString().length;
    exp = n - 1 - x.scale;
    // coef / 10^(n-1) is the significand; keep `scale` of its decimals.
    const drop = n - 1 - scale;
    if (drop <= 0) sig = coef * 10n ** BigInt(-drop);
    else {
      const d = 10n ** BigInt(drop);
      sig = coef / d;
      if ((coef % d) * 2n >= d) sig += 1n;
    }
  }
  const digits = sig.toString().padStart(scale + 1, '0');
  const mant = scale > 0 ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return `${neg ? '-' : ''}${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

function prepared(fmt: string): { t: NumTemplate; d: NumDesc } {
  const t = parseNumberTemplate(fmt);
  return { t, d: { ...t.desc } };
}

const has = (d: NumDesc, f: number): boolean => (d.flag & f) !== 0;

export function numericToChar(v: Numeric, fmt: string): string {
  if (fmt === '') return '';
  const { t, d } = prepared(fmt);
  let digits: Digits;
  if (has(d, F_ROMAN)) {
    const r = v.isFinite() ? v.round(0) : null;
    const n = r !== null && r.cmp(Numeric.fromInt(INT4_MAX)) <= 0 && r.cmp(Numeric.fromInt(-INT4_MAX - 1)) >= 0 ? r.toNumber() : INT4_MAX;
    digits = { str: intToRoman(n), preSpaces: 0, sign: '' };
  } else if (has(d, F_EEEE)) {
    if (!v.isFinite()) digits = { str: eeeeFill(d), preSpaces: 0, sign: '' };
    else {
      const s = numericSci(v, d.post);
      digits = { str: s.startsWith('-') ? s : ' ' + s, preSpaces: 0, sign: '' };
    }
  } else {
    let val = v;
    if (has(d, F_MULTI)) {
      val = v.mul(Numeric.fromInt(10n ** BigInt(d.multi)));
      d.pre += d.multi;
    }
    digits = fitDigits(d, val.round(d.post).toString());
  }
  return layout(t, d, digits);
}

export function int4ToChar(v: number, fmt: string): string {
  if (fmt === '') return '';
  const { t, d } = prepared(fmt);
  let digits: Digits;
  if (has(d, F_ROMAN)) digits = { str: intToRoman(v), preSpaces: 0, sign: '' };
  else if (has(d, F_EEEE)) digits = { str: printfExp(v, d.post).replace(/^\+/, ' '), preSpaces: 0, sign: '' };
  else {
    let val = v;
    if (has(d, F_MULTI)) {
      // 10^multi goes through float8 → int4 and the product is checked, both failing as int4 overflow.
      if (d.multi > 9) int4Overflow();
      val = checkInt4(v * 10 ** d.multi);
      d.pre += d.multi;
    }
    digits = fitInteger(d, String(val));
  }
  return layout(t, d, digits);
}

export function int8ToChar(v: Int8, fmt: string): string {
  if (fmt === '') return '';
  const { t, d } = prepared(fmt);
  let digits: Digits;
  const big = toBig(v);
  if (has(d, F_ROMAN)) {
    digits = { str: intToRoman(big <= 2147483647n && big >= -2147483648n ? Number(big) : INT4_MAX), preSpaces: 0, sign: '' };
  } else if (has(d, F_EEEE)) {
    const s = numericSci(Numeric.fromInt(big), d.post);
    digits = { str: s.startsWith('-') ? s : ' ' + s, preSpaces: 0, sign: '' };
  } else {
    let val = big;
    if (has(d, F_MULTI)) {
      // 10^multi goes through float8 → int8, which overflows from 10^19 on.
      if (d.multi > 18) int8Overflow();
      val = big * 10n ** BigInt(d.multi);
      if (val > 9223372036854775807n || val < -9223372036854775808n) int8Overflow();
      d.pre += d.multi;
    }
    digits = fitInteger(d, val.toString());
  }
  return layout(t, d, digits);
}

export function float8ToChar(v: number, fmt: string): string {
  return floatToChar(v, fmt, false);
}

export function float4ToChar(v: number, fmt: string): string {
  return floatToChar(v, fmt, true);
}

function floatToChar(v: number, fmt: string, float4: boolean): string {
  if (fmt === '') return '';
  const { t, d } = prepared(fmt);
  let digits: Digits;
  if (has(d, F_ROMAN)) {
    const r = rint(v);
    digits = { str: intToRoman(!Number.isNaN(r) && r >= -2147483648 && r <= INT4_MAX ? r : INT4_MAX), preSpaces: 0, sign: '' };
  } else if (has(d, F_EEEE)) {
    if (!Number.isFinite(v)) digits = { str: eeeeFill(d), preSpaces: 0, sign: '' };
    else digits = { str: printfExp(v, d.post).replace(/^\+/, ' '), preSpaces: 0, sign: '' };
  } else {
    let val = v;
    if (has(d, F_MULTI)) {
      const m = Number(`1e${d.multi}`);
      // float4 multiplies in single precision (the product of two floats is exact in a double).
      val = float4 ? Math.fround(v * Math.fround(m)) : v * m;
      d.pre += d.multi;
    }
    // Only FLT_DIG / DBL_DIG significant digits are printed: fewer decimals for a long integer part.
    const intLen = printfFixed(Math.abs(val), 0).length;
    const maxDig = float4 ? FLT_DIG : DBL_DIG;
    if (intLen >= maxDig) d.post = 0;
    else if (intLen + d.post > maxDig) d.post = maxDig - intLen;
    digits = fitDigits(d, printfFixed(val, d.post));
  }
  return layout(t, d, digits);
}

/** The ordinal suffix of the digit string, or PostgreSQL's error when it does not end in a digit. */
function ordinalSuffix(num: string, upper: boolean): string {
  const last = num[num.length - 1] ?? '';
  if (!(last >= '0' && last <= '9')) throw new QuireError('22P02', `"${num}" is not a number`);
  const teen = num.length > 1 && num[num.length - 2] === '1';
  const s = teen ? 'th' : last === '1' ? 'st' : last === '2' ? 'nd' : last === '3' ? 'rd' : 'th';
  return upper ? s.toUpperCase() : s;
}

/** PostgreSQL's NUM_processor in the to_char direction. */
function layout(t: NumTemplate, d: NumDesc, digits: Digits): string {
  if (d.zeroStart > 0) d.zeroStart--;
  if (has(d, F_EEEE)) return digits.str;
  return new Layout(d, digits).run(t);
}

class Layout {
  private readonly number: string;
  private readonly sign: '+' | '-' | '';
  private readonly outPreSpaces: number;
  private readonly fm: boolean;
  private signWrote: boolean;
  private readonly numCount: number;
  /** In fill mode, the last fractional digit worth printing (the point itself when none is); -1 if unset. */
  private readonly lastRelevant: number;
  /** Position in `number`. */
  private p = 0;
  private numCurr = 0;
  private numIn = false;
  private out = '';

  constructor(
    private readonly d: NumDesc,
    digits: Digits,
  ) {
    const number = digits.str;
    this.number = number;
    this.sign = digits.sign;
    this.outPreSpaces = digits.preSpaces;
    this.fm = has(d, F_FILLMODE);
    if (has(d, F_PLUS) || has(d, F_MINUS)) {
      // MI / PL / SG write the sign themselves; PL alone still leaves a minus to the digits.
      this.signWrote = !(has(d, F_PLUS) && !has(d, F_MINUS));
    } else {
      if (this.sign !== '-' && this.fm) d.flag &= ~F_BRACKET;
      this.signWrote = this.sign === '+' && this.fm && !has(d, F_LSIGN);
      if (d.lsign === LSIGN_PRE && d.pre === d.preLsignNum) d.lsign = LSIGN_POST;
    }
    let lastRelevant = -1;
    if (this.fm && has(d, F_DECIMAL)) {
      const point = number.indexOf('.');
      if (point >= 0) {
        lastRelevant = point;
        for (let i = point + 1; i < number.length; i++) if (number[i] !== '0') lastRelevant = i;
        // '0' positions keep their digits even in fill mode.
        if (d.zeroEnd > this.outPreSpaces) {
          const lastZero = Math.min(number.length - 1, d.zeroEnd - this.outPreSpaces);
          if (lastRelevant < lastZero) lastRelevant = lastZero;
        }
      }
    }
    this.lastRelevant = lastRelevant;
    this.numCount = d.post + d.pre - (!this.signWrote && this.outPreSpaces === 0 ? 0 : 1);
  }

  /** '\0' stands for reading past the end of the digit string. */
  private at(i: number): string {
    return i < this.number.length ? this.number[i]! : '\0';
  }

  private relevantIsPoint(): boolean {
    return this.lastRelevant >= 0 && this.at(this.lastRelevant) === '.';
  }

  private signChar(): string {
    return this.sign === '-' ? '-' : '+';
  }

  run(t: NumTemplate): string {
    const d = this.d;
    const fm = this.fm;
    const sign = this.sign;
    for (const n of t.nodes) {
      if (n.key === null) {
        this.out += n.text;
        continue;
      }
      switch (n.key) {
        case '9':
        case '0':
        case '.':
        case 'D':
          this.digitPosition(n.key);
          break;
        case ',':
        case 'G':
          if (this.numIn) this.out += ',';
          else if (!fm) this.out += ' ';
          break;
        case 'L':
          this.out += ' ';
          break;
        case 'RN':
        case 'rn': {
          const s = n.key === 'rn' ? this.number.slice(this.p).toLowerCase() : this.number.slice(this.p);
          this.out += fm ? s : s.padStart(15);
          break;
        }
        case 'TH':
        case 'th':
          if (has(d, F_ROMAN) || this.number[0] === '#' || sign === '-' || has(d, F_DECIMAL)) break;
          this.out += ordinalSuffix(this.number, n.key === 'TH');
          break;
        case 'MI':
          if (sign === '-') this.out += '-';
          else if (!fm) this.out += ' ';
          break;
        case 'PL':
          if (sign === '+') this.out += '+';
          else if (!fm) this.out += ' ';
          break;
        case 'SG':
          this.out += sign === '' ? '\0' : sign;
          break;
        default:
          break;
      }
    }
    const stop = this.out.indexOf('\0');
    return stop >= 0 ? this.out.slice(0, stop) : this.out;
  }

  /** PostgreSQL's NUM_numpart_to_char: one 9 / 0 / D / . position. */
  private digitPosition(key: NumKey): void {
    const d = this.d;
    if (has(d, F_ROMAN)) return;
    const zero = has(d, F_ZERO);
    const numCurr = this.numCurr;
    this.numIn = false;
    // A zero integer part before a fraction prints as a blank ('9.9' of 0.1 is '  .1').
    const predecSpace = !zero && this.p === 0 && this.at(0) === '0' && d.post !== 0;
    if (!this.signWrote && (numCurr >= this.outPreSpaces || (zero && d.zeroStart === numCurr)) && (!predecSpace || this.relevantIsPoint())) {
      if (has(d, F_LSIGN)) {
        if (d.lsign === LSIGN_PRE) {
          this.out += this.signChar();
          this.signWrote = true;
        }
      } else if (has(d, F_BRACKET)) {
        this.out += this.sign === '+' ? ' ' : '<';
        this.signWrote = true;
      } else if (this.sign === '+') {
        if (!this.fm) this.out += ' ';
        this.signWrote = true;
      } else if (this.sign === '-') {
        this.out += '-';
        this.signWrote = true;
      }
    }
    if (numCurr < this.outPreSpaces && (d.zeroStart > numCurr || !zero)) {
      if (!this.fm) this.out += ' ';
    } else if (zero && numCurr < this.outPreSpaces && d.zeroStart <= numCurr) {
      this.out += '0';
      this.numIn = true;
    } else {
      const c = this.at(this.p);
      if (c === '.') this.out += '.';
      else if (this.lastRelevant >= 0 && this.p > this.lastRelevant && key !== '0') {
        // fill mode drops trailing fractional zeros
      } else if (predecSpace) {
        if (!this.fm) this.out += ' ';
        else if (this.relevantIsPoint()) this.out += '0';
      } else {
        this.out += c;
        this.numIn = true;
      }
      if (this.p < this.number.length) this.p++;
    }
    let end = this.numCount + (this.outPreSpaces ? 1 : 0) + (has(d, F_DECIMAL) ? 1 : 0);
    if (this.lastRelevant >= 0 && this.lastRelevant === this.p) end = numCurr;
    if (numCurr + 1 === end) {
      if (this.signWrote && has(d, F_BRACKET)) this.out += this.sign === '+' ? ' ' : '>';
      else if (has(d, F_LSIGN) && d.lsign === LSIGN_POST) this.out += this.signChar();
    }
    this.numCurr++;
  }
}

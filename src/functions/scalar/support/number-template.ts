/**
 * The numeric template of to_char / to_number ('FM999,999.00', 'S9.99EEEE', 'RN'): its keywords and
 * the description PostgreSQL derives from them while parsing (digits before and after the point, sign
 * style, V multiplier, fill mode), with PostgreSQL's template errors. Keywords are matched
 * case-sensitively in PostgreSQL's table order (which puts 'SG' and 'SP' before 'S'); only upper or
 * lower case spellings exist, and 'rn' / 'th' keep their case because they pick the output case.
 */
import { QuireError } from '../../../common/errors.js';

export type NumKey =
  | ','
  | '.'
  | '0'
  | '9'
  | 'B'
  | 'C'
  | 'D'
  | 'EEEE'
  | 'FM'
  | 'G'
  | 'L'
  | 'MI'
  | 'PL'
  | 'PR'
  | 'RN'
  | 'rn'
  | 'SG'
  | 'SP'
  | 'S'
  | 'TH'
  | 'th'
  | 'V';

export type NumNode = { readonly key: NumKey } | { readonly key: null; readonly text: string };

export const F_DECIMAL = 1 << 1;
export const F_ZERO = 1 << 3;
export const F_BLANK = 1 << 4;
export const F_FILLMODE = 1 << 5;
export const F_LSIGN = 1 << 6;
export const F_BRACKET = 1 << 7;
export const F_MINUS = 1 << 8;
export const F_PLUS = 1 << 9;
export const F_ROMAN = 1 << 10;
export const F_MULTI = 1 << 11;
export const F_EEEE = 1 << 14;

export const LSIGN_PRE = -1;
export const LSIGN_POST = 1;

/** PostgreSQL's NUMDesc; callers copy it before use because formatting adjusts it per value. */
export interface NumDesc {
  flag: number;
  /** Digit positions before and after the decimal point. */
  pre: number;
  post: number;
  /** Where an S pattern puts the sign: LSIGN_PRE, LSIGN_POST or 0. */
  lsign: number;
  preLsignNum: number;
  /** Digits after V (the value is multiplied by 10^multi). */
  multi: number;
  /** 1-based position of the first '0' pattern and the count through the last one. */
  zeroStart: number;
  zeroEnd: number;
}

export interface NumTemplate {
  readonly nodes: readonly NumNode[];
  readonly desc: Readonly<NumDesc>;
}

/** PostgreSQL's keyword table order: a keyword precedes any keyword it starts with. */
const KEYWORDS: readonly [string, NumKey][] = [
  [',', ','], ['.', '.'], ['0', '0'], ['9', '9'], ['B', 'B'], ['C', 'C'], ['D', 'D'], ['EEEE', 'EEEE'],
  ['FM', 'FM'], ['G', 'G'], ['L', 'L'], ['MI', 'MI'], ['PL', 'PL'], ['PR', 'PR'], ['RN', 'RN'], ['SG', 'SG'],
  ['SP', 'SP'], ['S', 'S'], ['TH', 'TH'], ['V', 'V'], ['b', 'B'], ['c', 'C'], ['d', 'D'], ['eeee', 'EEEE'],
  ['fm', 'FM'], ['g', 'G'], ['l', 'L'], ['mi', 'MI'], ['pl', 'PL'], ['pr', 'PR'], ['rn', 'rn'], ['sg', 'SG'],
  ['sp', 'SP'], ['s', 'S'], ['th', 'th'], ['v', 'V'],
];

const syntax = (message: string, detail?: string): QuireError =>
  new QuireError('42601', message, detail === undefined ? {} : { detail });

/** PostgreSQL's NUMDesc_prepare: fold one keyword into the description, rejecting bad combinations. */
function prepare(d: NumDesc, key: NumKey): void {
  const has = (f: number): boolean => (d.flag & f) !== 0;
  if (has(F_EEEE) && key !== 'EEEE') throw syntax('"EEEE" must be the last pattern used');
  switch (key) {
    case '9':
      if (has(F_BRACKET)) throw syntax('"9" must be ahead of "PR"');
      if (has(F_MULTI)) d.multi++;
      else if (has(F_DECIMAL)) d.post++;
      else d.pre++;
      break;
    case '0':
      if (has(F_BRACKET)) throw syntax('"0" must be ahead of "PR"');
      if (!has(F_ZERO) && !has(F_DECIMAL)) {
        d.flag |= F_ZERO;
        d.zeroStart = d.pre + 1;
      }
      if (has(F_DECIMAL)) d.post++;
      else d.pre++;
      d.zeroEnd = d.pre + d.post;
      break;
    case 'B':
      if (d.pre === 0 && d.post === 0 && !has(F_ZERO)) d.flag |= F_BLANK;
      break;
    case 'D':
    case '.':
      if (has(F_DECIMAL)) throw syntax('multiple decimal points');
      if (has(F_MULTI)) throw syntax('cannot use "V" and decimal point together');
      d.flag |= F_DECIMAL;
      break;
    case 'FM':
      d.flag |= F_FILLMODE;
      break;
    case 'S':
      if (has(F_LSIGN)) throw syntax('cannot use "S" twice');
      if (has(F_PLUS) || has(F_MINUS) || has(F_BRACKET)) throw syntax('cannot use "S" and "PL"/"MI"/"SG"/"PR" together');
      if (!has(F_DECIMAL)) {
        d.lsign = LSIGN_PRE;
        d.preLsignNum = d.pre;
        d.flag |= F_LSIGN;
      } else if (d.lsign === 0) {
        d.lsign = LSIGN_POST;
        d.flag |= F_LSIGN;
      }
      break;
    case 'MI':
      if (has(F_LSIGN)) throw syntax('cannot use "S" and "MI" together');
      d.flag |= F_MINUS;
      break;
    case 'PL':
      if (has(F_LSIGN)) throw syntax('cannot use "S" and "PL" together');
      d.flag |= F_PLUS;
      break;
    case 'SG':
      if (has(F_LSIGN)) throw syntax('cannot use "S" and "SG" together');
      d.flag |= F_MINUS | F_PLUS;
      break;
    case 'PR':
      if (has(F_LSIGN) || has(F_PLUS) || has(F_MINUS)) throw syntax('cannot use "PR" and "S"/"PL"/"MI"/"SG" together');
      d.flag |= F_BRACKET;
      break;
    case 'RN':
    case 'rn':
      if (has(F_ROMAN)) throw syntax('cannot use "RN" twice');
      d.flag |= F_ROMAN;
      break;
    case 'V':
      if (has(F_DECIMAL)) throw syntax('cannot use "V" and decimal point together');
      d.flag |= F_MULTI;
      break;
    case 'EEEE':
      if (has(F_EEEE)) throw syntax('cannot use "EEEE" twice');
      if (has(F_BLANK | F_FILLMODE | F_LSIGN | F_BRACKET | F_MINUS | F_PLUS | F_ROMAN | F_MULTI)) {
        throw syntax('"EEEE" is incompatible with other formats', '"EEEE" may only be used together with digit and decimal point patterns.');
      }
      d.flag |= F_EEEE;
      break;
    default:
      break;
  }
  if (has(F_ROMAN) && (d.flag & ~(F_ROMAN | F_FILLMODE)) !== 0) {
    throw syntax('"RN" is incompatible with other formats', '"RN" may only be used together with "FM".');
  }
}

function keywordAt(fmt: string, i: number): [string, NumKey] | undefined {
  const c = fmt[i];
  for (const k of KEYWORDS) {
    if (k[0][0] === c && fmt.startsWith(k[0], i)) return k;
  }
  return undefined;
}

const cache = new Map<string, NumTemplate>();

export function parseNumberTemplate(fmt: string): NumTemplate {
  const hit = cache.get(fmt);
  if (hit !== undefined) return hit;
  const desc: NumDesc = { flag: 0, pre: 0, post: 0, lsign: 0, preLsignNum: 0, multi: 0, zeroStart: 0, zeroEnd: 0 };
  const nodes: NumNode[] = [];
  let i = 0;
  // Literal characters are whole code points: to_number skips one input character per literal.
  const literal = (): void => {
    const cp = fmt.codePointAt(i)!;
    const text = String.fromCodePoint(cp);
    nodes.push({ key: null, text });
    i += text.length;
  };
  while (i < fmt.length) {
    const k = keywordAt(fmt, i);
    if (k !== undefined) {
      prepare(desc, k[1]);
      nodes.push({ key: k[1] });
      i += k[0].length;
    } else if (fmt[i] === '"') {
      i++;
      while (i < fmt.length) {
        if (fmt[i] === '"') {
          i++;
          break;
        }
        if (fmt[i] === '\\' && i + 1 < fmt.length) i++;
        literal();
      }
    } else {
      if (fmt[i] === '\\' && fmt[i + 1] === '"') i++;
      literal();
    }
  }
  const t: NumTemplate = { nodes, desc };
  if (cache.size > 256) cache.clear();
  cache.set(fmt, t);
  return t;
}

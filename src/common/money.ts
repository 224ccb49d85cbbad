/**
 * The money type as PostgreSQL defines it under lc_monetary = C: a signed 64-bit count of cents (two
 * fraction digits, '$' as currency symbol, ',' grouping every three digits, '.' as decimal point).
 * Values use int8's representation (number while a safe integer, bigint beyond), so storage, sorting and
 * hashing treat money exactly as int8.
 */
import { QuireError } from './errors.js';

export type Money = number | bigint;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const SAFE_MIN = BigInt(Number.MIN_SAFE_INTEGER);
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

export function moneyOutOfRange(): never {
  throw new QuireError('22003', 'money out of range');
}

/** Back to the canonical representation, or "money out of range" outside int64. */
export function moneyFromBig(b: bigint): Money {
  if (b < INT64_MIN || b > INT64_MAX) moneyOutOfRange();
  return b >= SAFE_MIN && b <= SAFE_MAX ? Number(b) : b;
}

export function moneyToBig(v: Money): bigint {
  return typeof v === 'bigint' ? v : BigInt(v);
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
// C's isspace() in the C locale.
const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';

/**
 * cash_in: optional '$' and a sign ('-', '+' or '(') before the digits in either order, ',' separators
 * anywhere in the integer digits, the third fraction digit rounds (half up on the magnitude), further
 * digits are ignored, and a trailing ')', '-', '+' or '$' is accepted.
 */
export function parseMoney(str: string): Money {
  const outOfRange = (): QuireError => new QuireError('22003', `value "${str}" is out of range for type money`);
  let i = 0;
  const skipSpace = (): void => {
    while (isSpace(str[i])) i++;
  };
  const skipCurrency = (): void => {
    if (str[i] === '$') i++;
  };
  skipSpace();
  skipCurrency();
  skipSpace();
  let negative = false;
  if (str[i] === '-' || str[i] === '(') {
    negative = true;
    i++;
  } else if (str[i] === '+') i++;
  skipSpace();
  skipCurrency();
  skipSpace();
  // Built as a magnitude in bigint and range-checked against the sign's bound at each step, as
  // PostgreSQL's accumulation in the negative range does.
  let value = 0n;
  let dec = 0;
  let seenDot = false;
  for (; i < str.length; i++) {
    const c = str[i]!;
    if (isDigit(c) && (!seenDot || dec < 2)) {
      value = value * 10n + BigInt(c.charCodeAt(0) - 48);
      if (value > -INT64_MIN) throw outOfRange();
      if (seenDot) dec++;
    } else if (c === '.' && !seenDot) seenDot = true;
    else if (c === ',') continue;
    else break;
  }
  if (isDigit(str[i]) && str[i]! >= '5') {
    value += 1n;
    if (value > -INT64_MIN) throw outOfRange();
  }
  for (; dec < 2; dec++) {
    value *= 10n;
    if (value > -INT64_MIN) throw outOfRange();
  }
  while (isDigit(str[i])) i++;
  for (; i < str.length; i++) {
    const c = str[i]!;
    if (isSpace(c) || c === ')' || c === '+' || c === '$') continue;
    if (c === '-') negative = true;
    else throw new QuireError('22P02', `invalid input syntax for type money: "${str}"`);
  }
  if (!negative && value > INT64_MAX) throw outOfRange();
  return moneyFromBig(negative ? -value : value);
}

/** cash_out: '$', thousands grouped with ',', always two fraction digits, a leading '-' when negative. */
export function formatMoney(v: Money): string {
  const neg = typeof v === 'bigint' ? v < 0n : v < 0;
  let digits = (neg ? -moneyToBig(v) : moneyToBig(v)).toString().padStart(3, '0');
  const frac = digits.slice(-2);
  digits = digits.slice(0, -2);
  let grouped = '';
  for (let end = digits.length; end > 0; end -= 3) {
    const part = digits.slice(Math.max(0, end - 3), end);
    grouped = grouped === '' ? part : `${part},${grouped}`;
  }
  return `${neg ? '-' : ''}$${grouped}.${frac}`;
}

/**
 * cash_words(money): the amount in English words as PostgreSQL spells it ("One thousand two hundred thirty
 * four dollars and fifty six cents"), in groups of three digits up to quadrillions.
 */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { Money } from '../../common/money.js';

const SMALL = [
  'zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen',
  'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen', 'twenty', 'thirty', 'forty', 'fifty', 'sixty',
  'seventy', 'eighty', 'ninety',
];
// PostgreSQL indexes the tens from "twenty" at 18 + tens, so tens = 1 is never looked up this way.
const tens = (t: number): string => SMALL[18 + t]!;

/** num_word: 0 ..= 999, with PostgreSQL's "and" only before 1-19 after a hundred. */
function numWord(v: number): string {
  const tu = v % 100;
  if (v <= 20) return SMALL[v]!;
  const hundreds = Math.floor(v / 100);
  if (tu === 0) return `${SMALL[hundreds]} hundred`;
  let rest: string;
  if (v % 10 === 0 && tu > 10) rest = tens(tu / 10);
  else if (tu < 20) rest = v > 99 ? `and ${SMALL[tu]}` : SMALL[tu]!;
  else rest = `${tens(Math.floor(tu / 10))} ${SMALL[tu % 10]}`;
  return v > 99 ? `${SMALL[hundreds]} hundred ${rest}` : rest;
}

function cashWords(value: Money): string {
  let big = typeof value === 'bigint' ? value : BigInt(value);
  let out = '';
  if (big < 0n) {
    big = -big;
    out = 'minus ';
  }
  const dollars = big / 100n;
  const group = (div: bigint): number => Number((big / div) % 1000n);
  const names: [bigint, string][] = [
    [10n ** 17n, ' quadrillion '],
    [10n ** 14n, ' trillion '],
    [10n ** 11n, ' billion '],
    [10n ** 8n, ' million '],
    [10n ** 5n, ' thousand '],
  ];
  for (const [div, name] of names) {
    const m = group(div);
    if (m !== 0) out += numWord(m) + name;
  }
  const m1 = group(100n);
  if (m1 !== 0) out += numWord(m1);
  if (dollars === 0n) out += 'zero';
  const cents = Number(big % 100n);
  out += `${dollars === 1n ? ' dollar and ' : ' dollars and '}${numWord(cents)}${cents === 1 ? ' cent' : ' cents'}`;
  return out.charAt(0).toUpperCase() + out.slice(1);
}

registerScalar('cash_words', { args: ['money'], returns: T.text, fn: (_c: EvalContext, v: Money) => cashWords(v) });

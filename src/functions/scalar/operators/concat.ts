/**
 * '||' on text, text || anynonarray / anynonarray || text (PostgreSQL's textanycat / anytextcat), bytea
 * and bit varying.
 */
import { registerScalar } from '../../registry.js';
import { T } from '../../../common/types.js';
import type { DataType, Value } from '../../../common/types.js';
import type { EvalContext } from '../../eval-context.js';
import { guessTextOf, textOf, type TypedScalarOverload } from '../support/any-text.js';

// textanycat/anytextcat are `$1::text || $2`: the argument goes through its cast to text, which for
// bool spells the word out ('true'), unlike its output function ('t') that concat() and format() use.
function castTextOf(t: DataType): (v: Value, c: EvalContext) => string {
  if (t.name === 'bool') return (v) => (v ? 'true' : 'false');
  return textOf(t);
}
function guessCastText(v: Value, c: EvalContext): string {
  return typeof v === 'boolean' ? (v ? 'true' : 'false') : guessTextOf(v, c);
}

const textAny: TypedScalarOverload = {
  args: ['text', 'anynonarray'],
  returns: T.text,
  fn: (c: EvalContext, a: string, b: Value) => a + guessCastText(b, c),
  specialize: (ts: readonly DataType[]) => {
    const f = castTextOf(ts[1]!);
    return (c: EvalContext, a: string, b: Value) => a + f(b, c);
  },
};
const anyText: TypedScalarOverload = {
  args: ['anynonarray', 'text'],
  returns: T.text,
  fn: (c: EvalContext, a: Value, b: string) => guessCastText(a, c) + b,
  specialize: (ts: readonly DataType[]) => {
    const f = castTextOf(ts[0]!);
    return (c: EvalContext, a: Value, b: string) => f(a, c) + b;
  },
};

registerScalar(
  '||',
  { args: ['text', 'text'], returns: T.text, fn: (_c: EvalContext, a: string, b: string) => a + b },
  textAny,
  anyText,
  // bytea and bit strings are held as strings (see types.ts), so their concatenation is the strings'.
  { args: ['bytea', 'bytea'], returns: T.bytea, fn: (_c: EvalContext, a: string, b: string) => a + b },
  { args: ['varbit', 'varbit'], returns: T.varbit, fn: (_c: EvalContext, a: string, b: string) => a + b },
);

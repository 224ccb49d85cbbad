/** '||' on text, and text || anynonarray / anynonarray || text (PostgreSQL's textanycat / anytextcat). */
import { registerScalar } from '../../registry.js';
import { T } from '../../../common/types.js';
import type { DataType, Value } from '../../../common/types.js';
import type { EvalContext } from '../../eval-context.js';
import { guessTextOf, textOf, type TypedScalarOverload } from '../support/any-text.js';

const textAny: TypedScalarOverload = {
  args: ['text', 'anynonarray'],
  returns: T.text,
  fn: (c: EvalContext, a: string, b: Value) => a + guessTextOf(b, c),
  specialize: (ts: readonly DataType[]) => {
    const f = textOf(ts[1]!);
    return (c: EvalContext, a: string, b: Value) => a + f(b, c);
  },
};
const anyText: TypedScalarOverload = {
  args: ['anynonarray', 'text'],
  returns: T.text,
  fn: (c: EvalContext, a: Value, b: string) => guessTextOf(a, c) + b,
  specialize: (ts: readonly DataType[]) => {
    const f = textOf(ts[0]!);
    return (c: EvalContext, a: Value, b: string) => f(a, c) + b;
  },
};

registerScalar(
  '||',
  { args: ['text', 'text'], returns: T.text, fn: (_c: EvalContext, a: string, b: string) => a + b },
  textAny,
  anyText,
);

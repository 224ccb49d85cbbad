/** quote_nullable(text) and quote_nullable(anyelement): quote_literal of the value's text, or NULL unquoted for NULL. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { DataType, Value } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { guessTextOf, textOfArgs, type TextOf, type TypedScalarOverload } from './support/any-text.js';
import { quoteLiteral } from './support/quote.js';

function quoteNullableWith(textOf: TextOf) {
  return (ctx: EvalContext, v: Value): string => (v === null ? 'NULL' : quoteLiteral(textOf(v, ctx)));
}

registerScalar('quote_nullable', { args: ['text'], returns: T.text, strict: false, fn: (_c: EvalContext, s: string | null) => (s === null ? 'NULL' : quoteLiteral(s)) });

const anyOverload: TypedScalarOverload = {
  args: ['anynonarray'],
  returns: T.text,
  strict: false,
  fn: quoteNullableWith((v, ctx) => (typeof v === 'boolean' ? (v ? 'true' : 'false') : guessTextOf(v, ctx))),
  // The value's text is its cast to text, which for boolean is 'true'/'false' (not the output form t/f).
  specialize: (argTypes: readonly DataType[]) => quoteNullableWith(argTypes[0]?.name === 'bool' ? (v) => (v ? 'true' : 'false') : textOfArgs(argTypes)(0)),
};
registerScalar('quote_nullable', anyOverload);

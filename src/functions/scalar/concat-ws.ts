/** concat_ws(separator, variadic "any"): null arguments are skipped; a null separator gives null. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { DataType, Value } from '../../common/types.js';
import { guessTextOf, textOfArgs, type TextOf, type TypedScalarOverload } from './support/any-text.js';

function concatWsWith(textAt: (i: number) => TextOf) {
  return (ctx: EvalContext, sep: Value, ...args: Value[]): string | null => {
    if (sep === null) return null;
    const parts: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const v = args[i]!;
      if (v !== null) parts.push(textAt(i + 1)(v, ctx));
    }
    return parts.join(sep as string);
  };
}

const overload: TypedScalarOverload = {
  args: ['text', 'any'],
  variadic: true,
  returns: T.text,
  strict: false,
  fn: concatWsWith(() => guessTextOf),
  specialize: (argTypes: readonly DataType[]) => concatWsWith(textOfArgs(argTypes)),
};
registerScalar('concat_ws', overload);

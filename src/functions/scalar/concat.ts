/** concat(variadic "any"): nulls are skipped, so the function is not strict. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { DataType, Value } from '../../common/types.js';
import { guessTextOf, textOfArgs, type TextOf, type TypedScalarOverload } from './support/any-text.js';

function concatWith(textAt: (i: number) => TextOf) {
  return (ctx: EvalContext, ...args: Value[]): string => {
    let out = '';
    for (let i = 0; i < args.length; i++) {
      const v = args[i]!;
      if (v !== null) out += textAt(i)(v, ctx);
    }
    return out;
  };
}

const overload: TypedScalarOverload = {
  args: ['any'],
  variadic: true,
  returns: T.text,
  strict: false,
  fn: concatWith(() => guessTextOf),
  specialize: (argTypes: readonly DataType[]) => concatWith(textOfArgs(argTypes)),
};
registerScalar('concat', overload);

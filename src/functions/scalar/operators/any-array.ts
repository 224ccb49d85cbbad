/** x op ANY (array) for the six comparison operators (the binder names them '= any', '< any', …). */
import { registerScalar } from '../../registry.js';
import { T, type ArrayValue, type Value } from '../../../common/types.js';
import type { EvalContext } from '../../eval-context.js';
import { quantifiedCompare, type CompareOp } from '../../../common/compare.js';

for (const op of ['=', '<>', '<', '<=', '>', '>='] as const satisfies readonly CompareOp[]) {
  registerScalar(`${op} any`, {
    args: ['anyelement', 'anyarray'],
    returns: T.bool,
    strict: false,
    fn: (_c: EvalContext, x: Value, a: ArrayValue | null) => (a === null ? null : quantifiedCompare(x, a, T.text, op, false)),
    specialize: (types) => (_c: EvalContext, x: Value, a: ArrayValue | null) => (a === null ? null : quantifiedCompare(x, a, types[0]!, op, false)),
  });
}

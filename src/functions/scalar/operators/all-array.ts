/** x op ALL (array) for the six comparison operators (the binder names them '= all', '< all', …). */
import { registerScalar } from '../../registry.js';
import { T, type ArrayValue, type Value } from '../../../common/types.js';
import type { EvalContext } from '../../eval-context.js';
import { quantifiedCompare, type CompareOp } from '../../../common/compare.js';

for (const op of ['=', '<>', '<', '<=', '>', '>='] as const satisfies readonly CompareOp[]) {
  registerScalar(`${op} all`, {
    args: ['anyelement', 'anyarray'],
    returns: T.bool,
    strict: false,
    fn: (_c: EvalContext, x: Value, a: ArrayValue | null) => (a === null ? null : quantifiedCompare(x, a, T.text, op, true)),
    specialize: (types) => (_c: EvalContext, x: Value, a: ArrayValue | null) => (a === null ? null : quantifiedCompare(x, a, types[0]!, op, true)),
  });
}

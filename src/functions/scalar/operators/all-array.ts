/** x op ALL (text[]) for the six comparison operators (the binder names them '= all', '< all', …). */
import { registerScalar } from '../../registry.js';
import { T, type TextArray } from '../../../common/types.js';
import type { EvalContext } from '../../eval-context.js';
import { quantifiedCompare, type CompareOp } from '../../../common/compare.js';

for (const op of ['=', '<>', '<', '<=', '>', '>='] as const satisfies readonly CompareOp[]) {
  registerScalar(`${op} all`, {
    args: ['text', '_text'],
    returns: T.bool,
    strict: false,
    fn: (_c: EvalContext, x: string | null, a: TextArray | null) => (a === null ? null : quantifiedCompare(x, a, T.text, op, true)),
  });
}

/** x op ANY (text[]) for the six comparison operators (the binder names them '= any', '< any', …). */
import { registerScalar } from '../../registry.js';
import { T, type TextArray } from '../../../common/types.js';
import type { EvalContext } from '../../eval-context.js';
import { quantifiedCompare, type CompareOp } from '../../../common/compare.js';

for (const op of ['=', '<>', '<', '<=', '>', '>='] as const satisfies readonly CompareOp[]) {
  registerScalar(`${op} any`, {
    args: ['text', '_text'],
    returns: T.bool,
    strict: false,
    fn: (_c: EvalContext, x: string | null, a: TextArray | null) => (a === null ? null : quantifiedCompare(x, a, T.text, op, false)),
  });
}

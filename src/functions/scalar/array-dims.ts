/** array_dims(a): the bounds as text, `[1:n]`; null for an empty array. */
import { registerScalar } from '../registry.js';
import { T, type ArrayValue } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

registerScalar('array_dims', { args: ['anyarray'], returns: T.text, fn: (_c: EvalContext, a: ArrayValue) => (a.length === 0 ? null : `[1:${a.length}]`) });

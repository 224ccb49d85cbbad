/** cardinality(a): the number of elements (0 for an empty array). */
import { registerScalar } from '../registry.js';
import { T, type ArrayValue } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

registerScalar('cardinality', { args: ['anyarray'], returns: T.int4, fn: (_c: EvalContext, a: ArrayValue) => a.length });

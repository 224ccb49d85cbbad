/** array_ndims(a): the number of dimensions: 1, or null for an empty array (which has none). */
import { registerScalar } from '../registry.js';
import { T, type ArrayValue } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

registerScalar('array_ndims', { args: ['anyarray'], returns: T.int4, fn: (_c: EvalContext, a: ArrayValue) => (a.length === 0 ? null : 1) });

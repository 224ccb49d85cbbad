/** '||' on arrays: array || array (array_cat), array || element (array_append), element || array (array_prepend). */
import { registerScalar } from '../../registry.js';
import { type ArrayValue, type Value } from '../../../common/types.js';
import type { EvalContext } from '../../eval-context.js';
import { arrayArg } from '../support/array-support.js';
import { concatArrays } from '../array-cat.js';
import { appendElement } from '../array-append.js';
import { prependElement } from '../array-prepend.js';

// array || array first: an untyped literal beside an array is read as an array, as in PostgreSQL.
registerScalar(
  '||',
  { args: ['anyarray', 'anyarray'], returns: arrayArg, strict: false, fn: (_c: EvalContext, a: ArrayValue | null, b: ArrayValue | null) => concatArrays(a, b) },
  { args: ['anyarray', 'anyelement'], returns: arrayArg, strict: false, fn: (_c: EvalContext, a: ArrayValue | null, x: Value) => appendElement(a, x) },
  { args: ['anyelement', 'anyarray'], returns: arrayArg, strict: false, fn: (_c: EvalContext, x: Value, a: ArrayValue | null) => prependElement(x, a) },
);

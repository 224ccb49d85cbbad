/** array_fill(value, dims [, lower_bounds]): an array of dims[1] copies of value (one dimension, lower bound 1). */
import { QuireError } from '../../common/errors.js';
import { registerScalar } from '../registry.js';
import { arrayTypeFor, type ArrayValue, type DataType, type Value } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { checkArrayLength } from './support/array-limit.js';


function fill(v: Value, dims: ArrayValue | null, lbs: ArrayValue | null): ArrayValue | null {
  if (dims === null) throw new QuireError('22004', 'dimension array or low bound array cannot be null');
  if (dims.length === 0) return [];
  if (dims.length > 1) throw new QuireError('0A000', 'multidimensional arrays are not supported');
  if (lbs !== null && (lbs.length !== 1 || lbs[0] !== 1)) {
    if (lbs.length !== dims.length) throw new QuireError('2202E', 'wrong number of array subscripts', { detail: 'Low bound array has different size than dimensions array.' });
    throw new QuireError('0A000', 'array lower bounds other than 1 are not supported');
  }
  const n = dims[0];
  if (n === null) throw new QuireError('22004', 'dimension values cannot be null');
  if ((n as number) <= 0) return [];
  checkArrayLength(n as number);
  return new Array<Value>(n as number).fill(v);
}

const returns = (types: readonly DataType[]): DataType => arrayTypeFor(types[0]!);

registerScalar(
  'array_fill',
  { args: ['anyelement', '_int4'], returns, strict: false, fn: (_c: EvalContext, v: Value, d: ArrayValue | null) => fill(v, d, null) },
  {
    args: ['anyelement', '_int4', '_int4'],
    returns,
    strict: false,
    fn: (_c: EvalContext, v: Value, d: ArrayValue | null, l: ArrayValue | null) => {
      if (l === null) throw new QuireError('22004', 'dimension array or low bound array cannot be null');
      return fill(v, d, l);
    },
  },
);

/** width_bucket(operand, low, high, count): equi-width histogram buckets, 0 and count+1 outside. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { Numeric } from '../../common/numeric.js';
import { err } from '../../common/errors.js';
import { int4Overflow } from './support/int.js';

const INVALID_ARGUMENT_FOR_WIDTH_BUCKET = '2201G';
const bad = (msg: string): never => {
  throw err(INVALID_ARGUMENT_FOR_WIDTH_BUCKET, msg);
};

function afterLast(count: number): number {
  if (count === 2147483647) int4Overflow();
  return count + 1;
}

function floatBucket(_c: EvalContext, op: number, b1: number, b2: number, count: number): number {
  if (count <= 0) bad('count must be greater than zero');
  if (Number.isNaN(op) || Number.isNaN(b1) || Number.isNaN(b2)) bad('operand, lower bound, and upper bound cannot be NaN');
  if (!Number.isFinite(b1) || !Number.isFinite(b2)) bad('lower and upper bounds must be finite');
  let r: number;
  if (b1 < b2) {
    if (op < b1) return 0;
    if (op >= b2) return afterLast(count);
    r = Number.isFinite(b2 - b1) ? count * ((op - b1) / (b2 - b1)) : count * ((op / 2 - b1 / 2) / (b2 / 2 - b1 / 2));
  } else if (b1 > b2) {
    if (op > b1) return 0;
    if (op <= b2) return afterLast(count);
    r = Number.isFinite(b1 - b2) ? count * ((b1 - op) / (b1 - b2)) : count * ((b1 / 2 - op / 2) / (b1 / 2 - b2 / 2));
  } else {
    return bad('lower bound cannot equal upper bound');
  }
  // The quotient can round up to exactly count, which would name a bucket past the end.
  let bucket = Math.trunc(r);
  if (bucket >= count) bucket = count - 1;
  return bucket + 1;
}

/** Exact integer quotient: x - mod(x, y) is a multiple of y, so the division cannot round up. */
function intQuotient(x: Numeric, y: Numeric): Numeric {
  return x.sub(x.mod(y)).div(y).trunc(0);
}

function numericBucket(_c: EvalContext, op: Numeric, b1: Numeric, b2: Numeric, count: number): number {
  if (count <= 0) bad('count must be greater than zero');
  if (op.isNaN() || b1.isNaN() || b2.isNaN()) bad('operand, lower bound, and upper bound cannot be NaN');
  if (!b1.isFinite() || !b2.isFinite()) bad('lower and upper bounds must be finite');
  const n = Numeric.fromInt(count);
  const c = b1.cmp(b2);
  if (c < 0) {
    if (op.cmp(b1) < 0) return 0;
    if (op.cmp(b2) >= 0) return afterLast(count);
    return intQuotient(op.sub(b1).mul(n), b2.sub(b1)).toNumber() + 1;
  }
  if (c > 0) {
    if (op.cmp(b1) > 0) return 0;
    if (op.cmp(b2) <= 0) return afterLast(count);
    return intQuotient(b1.sub(op).mul(n), b1.sub(b2)).toNumber() + 1;
  }
  return bad('lower bound cannot equal upper bound');
}

registerScalar(
  'width_bucket',
  { args: ['float8', 'float8', 'float8', 'int4'], returns: T.int4, fn: floatBucket },
  { args: ['numeric', 'numeric', 'numeric', 'int4'], returns: T.int4, fn: numericBucket },
);

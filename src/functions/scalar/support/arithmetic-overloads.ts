/**
 * The number-typed overloads PostgreSQL's catalog gives each of + - * /: every same-width and mixed
 * int2/int4/int8 pair (int2pl, int24pl, int48pl, …), the float4/float8 pairs and numeric. Mixed pairs
 * use the wider type's kernel, as the catalog's cross-type functions do, so an int2 + int8 overflow is
 * an int8 overflow, not an int2 one.
 */
import { T } from '../../../common/types.js';
import type { Numeric } from '../../../common/numeric.js';
import type { EvalContext } from '../../eval-context.js';
import type { ScalarOverload } from '../../registry.js';
import type { Int8 } from './int.js';

export interface ArithmeticKernels {
  readonly i2: (c: EvalContext, a: number, b: number) => number;
  readonly i4: (c: EvalContext, a: number, b: number) => number;
  readonly i8: (c: EvalContext, a: Int8, b: Int8) => Int8;
  readonly f4: (c: EvalContext, a: number, b: number) => number;
  readonly f8: (c: EvalContext, a: number, b: number) => number;
  readonly numeric: (a: Numeric, b: Numeric) => Numeric;
}

export function arithmeticOverloads(k: ArithmeticKernels): ScalarOverload[] {
  return [
    { args: ['int2', 'int2'], returns: T.int2, fn: k.i2 },
    { args: ['int4', 'int4'], returns: T.int4, fn: k.i4 },
    { args: ['int8', 'int8'], returns: T.int8, fn: k.i8 },
    { args: ['int2', 'int4'], returns: T.int4, fn: k.i4 },
    { args: ['int4', 'int2'], returns: T.int4, fn: k.i4 },
    { args: ['int2', 'int8'], returns: T.int8, fn: k.i8 },
    { args: ['int8', 'int2'], returns: T.int8, fn: k.i8 },
    { args: ['int4', 'int8'], returns: T.int8, fn: k.i8 },
    { args: ['int8', 'int4'], returns: T.int8, fn: k.i8 },
    { args: ['float4', 'float4'], returns: T.float4, fn: k.f4 },
    { args: ['float8', 'float8'], returns: T.float8, fn: k.f8 },
    { args: ['float4', 'float8'], returns: T.float8, fn: k.f8 },
    { args: ['float8', 'float4'], returns: T.float8, fn: k.f8 },
    { args: ['numeric', 'numeric'], returns: T.numeric, fn: (_c: EvalContext, a: Numeric, b: Numeric) => k.numeric(a, b) },
  ];
}

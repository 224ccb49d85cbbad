/** '#': bitwise XOR (PostgreSQL spells it '#', since '^' is exponentiation). */
import { registerScalar } from '../../registry.js';
import { T } from '../../../common/types.js';
import type { EvalContext } from '../../eval-context.js';
import { int8Xor } from '../support/bitwise.js';
import { bitXor } from '../../../common/bit-string.js';
import type { Int8 } from '../support/int.js';

registerScalar(
  '#',
  { args: ['int2', 'int2'], returns: T.int2, fn: (_c: EvalContext, a: number, b: number) => a ^ b },
  { args: ['int4', 'int4'], returns: T.int4, fn: (_c: EvalContext, a: number, b: number) => a ^ b },
  { args: ['int8', 'int8'], returns: T.int8, fn: (_c: EvalContext, a: Int8, b: Int8) => int8Xor(a, b) },
  { args: ['bit', 'bit'], returns: T.bit, fn: (_c: EvalContext, a: string, b: string) => bitXor(a, b) },
);

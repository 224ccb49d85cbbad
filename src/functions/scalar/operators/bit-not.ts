/** Prefix '~': bitwise NOT. One-argument overloads, so it never competes with the binary regex '~'. */
import { registerScalar } from '../../registry.js';
import { T } from '../../../common/types.js';
import type { EvalContext } from '../../eval-context.js';
import { int8Not } from '../support/bitwise.js';
import { bitNot } from '../../../common/bit-string.js';
import type { Int8 } from '../support/int.js';

registerScalar(
  '~',
  { args: ['int2'], returns: T.int2, fn: (_c: EvalContext, a: number) => ~a },
  { args: ['int4'], returns: T.int4, fn: (_c: EvalContext, a: number) => ~a },
  { args: ['int8'], returns: T.int8, fn: (_c: EvalContext, a: Int8) => int8Not(a) },
  { args: ['bit'], returns: T.bit, fn: (_c: EvalContext, a: string) => bitNot(a) },
);

/** length(): characters, not bytes; bpchar ignores its trailing padding; bytes of a bytea, bits of a bit string. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { bpcharStrip, charLength } from './support/text.js';

registerScalar(
  'length',
  { args: ['text'], returns: T.int4, fn: (_c: EvalContext, s: string) => charLength(s) },
  { args: ['bpchar'], returns: T.int4, fn: (_c: EvalContext, s: string) => charLength(bpcharStrip(s)) },
  // bytea and bit strings hold one unit per byte / bit (see types.ts).
  { args: ['bytea'], returns: T.int4, fn: (_c: EvalContext, s: string) => s.length },
  { args: ['varbit'], returns: T.int4, fn: (_c: EvalContext, s: string) => s.length },
);

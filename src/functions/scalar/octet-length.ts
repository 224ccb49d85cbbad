/** octet_length(): UTF-8 bytes (the engine's only encoding); a bytea's bytes; a bit string's packed bytes. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { utf8Length } from './support/text.js';

registerScalar(
  'octet_length',
  { args: ['text'], returns: T.int4, fn: (_c: EvalContext, s: string) => utf8Length(s) },
  { args: ['bpchar'], returns: T.int4, fn: (_c: EvalContext, s: string) => utf8Length(s) },
  { args: ['bytea'], returns: T.int4, fn: (_c: EvalContext, s: string) => s.length },
  { args: ['varbit'], returns: T.int4, fn: (_c: EvalContext, s: string) => (s.length + 7) >> 3 },
);

/** substr(text, start[, count]) with SQL's window semantics for starts below 1. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { substrFor, substrFrom } from './support/substr.js';

registerScalar(
  'substr',
  { args: ['text', 'int4'], returns: T.text, fn: (_c: EvalContext, s: string, a: number) => substrFrom(s, a) },
  { args: ['text', 'int4', 'int4'], returns: T.text, fn: (_c: EvalContext, s: string, a: number, n: number) => substrFor(s, a, n) },
);

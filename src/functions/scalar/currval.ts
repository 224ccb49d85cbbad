/** currval(sequence): the value nextval last returned for it in this session (55000 before any). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { sequencesOf } from './nextval.js';

registerScalar('currval', { args: ['text'], returns: T.int8, volatile: true, fn: (c: EvalContext, name: string) => sequencesOf(c).currval(name) });

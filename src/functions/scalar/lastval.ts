/** lastval(): the value the session's latest nextval returned, of whichever sequence (55000 before any). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { sequencesOf } from './nextval.js';

registerScalar('lastval', { args: [], returns: T.int8, volatile: true, fn: (c: EvalContext) => sequencesOf(c).lastval() });

/** '~~*' (ILIKE); with ESCAPE the pattern goes through like_escape() first: ~~* like_escape(p, e). */
import { registerScalar } from '../../registry.js';
import { T } from '../../../common/types.js';
import type { EvalContext } from '../../eval-context.js';
import { ilike } from '../support/like.js';

const f = (_c: EvalContext, s: string, p: string): boolean => ilike(s, p);

// name ~~* text is PostgreSQL's own operator (namelike and kin), so a name column is matched without a cast.
registerScalar('~~*', { args: ['text', 'text'], returns: T.bool, fn: f }, { args: ['name', 'text'], returns: T.bool, fn: f });

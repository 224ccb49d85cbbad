/** '!~*': POSIX regular expression negated case-insensitive match (pattern translated by support/regex.ts). */
import { registerScalar } from '../../registry.js';
import { T } from '../../../common/types.js';
import type { EvalContext } from '../../eval-context.js';
import { compileRegex } from '../support/regex.js';

const f = (_c: EvalContext, s: string, p: string) => !compileRegex(p, 'i').test(s);

// name !~* text is PostgreSQL's own operator (nameregexeq and kin), so a name column is matched without a cast.
registerScalar('!~*', { args: ['text', 'text'], returns: T.bool, fn: f }, { args: ['name', 'text'], returns: T.bool, fn: f });

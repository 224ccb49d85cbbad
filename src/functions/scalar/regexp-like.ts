/** regexp_like(string, pattern[, flags]) (PostgreSQL 15+). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { compileRegex } from './support/regex.js';
import { rejectGlobal } from './support/regex-flags.js';

registerScalar(
  'regexp_like',
  { args: ['text', 'text'], returns: T.bool, fn: (_c: EvalContext, s: string, p: string) => compileRegex(p).test(s) },
  {
    args: ['text', 'text', 'text'],
    returns: T.bool,
    fn: (_c: EvalContext, s: string, p: string, f: string) => {
      rejectGlobal('regexp_like', f);
      return compileRegex(p, f).test(s);
    },
  },
);

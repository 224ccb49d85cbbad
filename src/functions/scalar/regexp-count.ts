/** regexp_count(string, pattern[, start[, flags]]) (PostgreSQL 15+): non-overlapping matches. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { err, SQLSTATE } from '../../common/errors.js';
import { compileRegex } from './support/regex.js';
import { rejectGlobal } from './support/regex-flags.js';
import { charLength, charSlice } from './support/text.js';

function count(s: string, p: string, start: number, flags: string): number {
  if (start <= 0) throw err(SQLSTATE.invalidParameterValue, `invalid value for parameter "start": ${start}`);
  rejectGlobal('regexp_count', flags);
  // Matching starts at `start` but the string keeps its real beginning, so '^' cannot match there.
  const text = s;
  const offset = start === 1 ? 0 : charSlice(s, 0, start - 1).length;
  if (start > 1 && charLength(s) < start) return 0;
  const re = compileRegex(p, flags, true);
  re.lastIndex = offset;
  let n = 0;
  for (;;) {
    const m = re.exec(text);
    if (m === null) break;
    n++;
    if (m[0] === '') {
      if (m.index >= text.length) break;
      re.lastIndex = m.index + (text.codePointAt(m.index)! > 0xffff ? 2 : 1);
    }
  }
  return n;
}

registerScalar(
  'regexp_count',
  { args: ['text', 'text'], returns: T.int4, fn: (_c: EvalContext, s: string, p: string) => count(s, p, 1, '') },
  { args: ['text', 'text', 'int4'], returns: T.int4, fn: (_c: EvalContext, s: string, p: string, st: number) => count(s, p, st, '') },
  {
    args: ['text', 'text', 'int4', 'text'],
    returns: T.int4,
    fn: (_c: EvalContext, s: string, p: string, st: number, f: string) => count(s, p, st, f),
  },
);

/** regexp_substr(string, pattern[, start[, n[, flags[, subexpr]]]]) (PostgreSQL 15+): the n-th match. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { err, SQLSTATE } from '../../common/errors.js';
import { compileRegex } from './support/regex.js';
import { rejectGlobal } from './support/regex-flags.js';
import { charLength, charSlice, detach } from './support/text.js';

function substr(s: string, p: string, start: number, n: number, flags: string, sub: number): string | null {
  if (start <= 0) throw err(SQLSTATE.invalidParameterValue, `invalid value for parameter "start": ${start}`);
  if (n <= 0) throw err(SQLSTATE.invalidParameterValue, `invalid value for parameter "n": ${n}`);
  if (sub < 0) throw err(SQLSTATE.invalidParameterValue, `invalid value for parameter "subexpr": ${sub}`);
  rejectGlobal('regexp_substr', flags);
  if (start > 1 && charLength(s) < start) return null;
  const re = compileRegex(p, flags, true);
  re.lastIndex = start === 1 ? 0 : charSlice(s, 0, start - 1).length;
  for (let k = 1; ; k++) {
    const m = re.exec(s);
    if (m === null) return null;
    if (k === n) {
      if (sub === 0) return detach(m[0], s);
      // Without capture groups PostgreSQL treats the whole match as subexpression 1.
      if (m.length === 1) return sub === 1 ? detach(m[0], s) : null;
      const g = m[sub];
      return g === undefined ? null : detach(g, s);
    }
    if (m[0] === '') {
      if (m.index >= s.length) return null;
      re.lastIndex = m.index + (s.codePointAt(m.index)! > 0xffff ? 2 : 1);
    }
  }
}

registerScalar(
  'regexp_substr',
  { args: ['text', 'text'], returns: T.text, fn: (_c: EvalContext, s: string, p: string) => substr(s, p, 1, 1, '', 0) },
  { args: ['text', 'text', 'int4'], returns: T.text, fn: (_c: EvalContext, s: string, p: string, st: number) => substr(s, p, st, 1, '', 0) },
  {
    args: ['text', 'text', 'int4', 'int4'],
    returns: T.text,
    fn: (_c: EvalContext, s: string, p: string, st: number, n: number) => substr(s, p, st, n, '', 0),
  },
  {
    args: ['text', 'text', 'int4', 'int4', 'text'],
    returns: T.text,
    fn: (_c: EvalContext, s: string, p: string, st: number, n: number, f: string) => substr(s, p, st, n, f, 0),
  },
  {
    args: ['text', 'text', 'int4', 'int4', 'text', 'int4'],
    returns: T.text,
    fn: (_c: EvalContext, s: string, p: string, st: number, n: number, f: string, sub: number) => substr(s, p, st, n, f, sub),
  },
);

/** regexp_replace(source, pattern, replacement[, flags]): first match, or every match with 'g'. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { compileRegex, expandReplacement } from './support/regex.js';

function replace(s: string, p: string, repl: string, flags: string): string {
  const global = flags.includes('g');
  const re = compileRegex(p, flags, true);
  let out = '';
  let last = 0;
  for (;;) {
    const m = re.exec(s);
    if (m === null) break;
    out += s.slice(last, m.index) + expandReplacement(repl, m);
    last = m.index + m[0].length;
    if (!global) break;
    // Step past an empty match by a whole character so surrogate pairs are not split.
    if (m[0] === '') {
      if (m.index >= s.length) break;
      re.lastIndex = m.index + (s.codePointAt(m.index)! > 0xffff ? 2 : 1);
    }
  }
  return out + s.slice(last);
}

registerScalar(
  'regexp_replace',
  { args: ['text', 'text', 'text'], returns: T.text, fn: (_c: EvalContext, s: string, p: string, r: string) => replace(s, p, r, '') },
  {
    args: ['text', 'text', 'text', 'text'],
    returns: T.text,
    fn: (_c: EvalContext, s: string, p: string, r: string, f: string) => replace(s, p, r, f),
  },
);

/** translate(string, from, to): characters of 'from' beyond the length of 'to' are deleted. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

registerScalar('translate', {
  args: ['text', 'text', 'text'],
  returns: T.text,
  fn: (_c: EvalContext, s: string, from: string, to: string) => {
    const f = Array.from(from);
    const t = Array.from(to);
    const map = new Map<string, string>();
    // The first occurrence of a character in 'from' wins.
    for (let i = 0; i < f.length; i++) if (!map.has(f[i]!)) map.set(f[i]!, i < t.length ? t[i]! : '');
    let out = '';
    for (const c of s) {
      const r = map.get(c);
      out += r === undefined ? c : r;
    }
    return out;
  },
});

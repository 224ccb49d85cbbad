/**
 * regexp_match(string, pattern[, flags]) → text[]: the first match's capture groups, or the whole match
 * when the pattern has none; a group that did not participate is a NULL element, no match is NULL.
 */
import { registerScalar } from '../registry.js';
import { T, type TextArray } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { compileRegex } from './support/regex.js';
import { rejectGlobal } from './support/regex-flags.js';
import { detach, detachAll } from './support/text.js';

function match(s: string, p: string, flags: string): TextArray | null {
  rejectGlobal('regexp_match', flags);
  const m = compileRegex(p, flags).exec(s);
  if (m === null) return null;
  if (m.length === 1) return [detach(m[0], s)];
  return detachAll(m.slice(1).map((g) => g ?? null), s);
}

registerScalar(
  'regexp_match',
  { args: ['text', 'text'], returns: T._text, fn: (_c: EvalContext, s: string, p: string) => match(s, p, '') },
  { args: ['text', 'text', 'text'], returns: T._text, fn: (_c: EvalContext, s: string, p: string, f: string) => match(s, p, f) },
);

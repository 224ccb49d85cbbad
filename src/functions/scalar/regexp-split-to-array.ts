/** regexp_split_to_array(string, pattern[, flags]) → text[]: the pieces between the pattern's matches. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { rejectGlobal } from './support/regex-flags.js';
import { splitByRegex } from './support/regex-matches.js';

function split(s: string, p: string, flags: string): string[] {
  rejectGlobal('regexp_split_to_array', flags);
  return splitByRegex(s, p, flags);
}

registerScalar(
  'regexp_split_to_array',
  { args: ['text', 'text'], returns: T._text, fn: (_c: EvalContext, s: string, p: string) => split(s, p, '') },
  { args: ['text', 'text', 'text'], returns: T._text, fn: (_c: EvalContext, s: string, p: string, f: string) => split(s, p, f) },
);

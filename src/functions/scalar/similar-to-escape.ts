/**
 * similar_to_escape(pattern[, escape]): the SQL-standard regex of SIMILAR TO rewritten as a POSIX one,
 * following PostgreSQL's similar_escape_internal character for character, since the parser turns
 * `x SIMILAR TO p ESCAPE e` into `x ~ similar_to_escape(p, e)` and users can call it directly too.
 * The result is anchored and wrapped in non-capturing parentheses; escape-double-quote separators
 * split it into the three parts SUBSTRING(... SIMILAR ...) uses.
 */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { err, SQLSTATE } from '../../common/errors.js';

export function similarToEscape(pattern: string, escape: string | null): string {
  let e: string | null = escape;
  if (e !== null) {
    const n = [...e].length;
    if (n === 0) e = null;
    else if (n > 1) throw err(SQLSTATE.invalidEscapeSequence, 'invalid escape string', undefined, { hint: 'Escape string must be empty or one character.' });
  }
  let out = '^(?:';
  let afterEscape = false;
  let inClass = false;
  // 1 right after '[', 2 after '[^': a ']' there is a literal member, not the end of the class.
  let classStart = 0;
  let quotes = 0;
  for (const c of pattern) {
    if (afterEscape) {
      if (c === '"' && !inClass) {
        if (quotes === 0) out += '){1,1}?(';
        else if (quotes === 1) out += '){1,1}(?:';
        else {
          throw err('2200C', 'SQL regular expression may not contain more than two escape-double-quote separators');
        }
        quotes++;
      } else {
        // Any character may be escaped, which gives access to class escapes such as \d.
        out += '\\' + c;
        classStart = 3;
      }
      afterEscape = false;
    } else if (e !== null && c === e) {
      afterEscape = true;
    } else if (inClass) {
      if (c === '\\') out += '\\';
      out += c;
      if (c === ']' && classStart > 2) inClass = false;
      else if (c === '^') classStart++;
      else classStart = 3;
    } else if (c === '[') {
      out += c;
      inClass = true;
      classStart = 1;
    } else if (c === '%') {
      out += '.*';
    } else if (c === '_') {
      out += '.';
    } else if (c === '(') {
      out += '(?:';
    } else if (c === '\\' || c === '.' || c === '^' || c === '$') {
      out += '\\' + c;
    } else {
      out += c;
    }
  }
  return out + ')$';
}

registerScalar(
  'similar_to_escape',
  { args: ['text'], returns: T.text, fn: (_c: EvalContext, p: string) => similarToEscape(p, '\\') },
  { args: ['text', 'text'], returns: T.text, fn: (_c: EvalContext, p: string, e: string) => similarToEscape(p, e) },
);

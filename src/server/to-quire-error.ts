/**
 * What a server reports for anything a request threw. Engine failures are QuireErrors already; the
 * JavaScript runtime's own limits are the client's statement being too big for the process (54xxx,
 * 53200), as PostgreSQL reports them; anything else is a bug (XX000), which the servers log with its
 * stack (`internal` is true for exactly those).
 */
import { QuireError } from '../common/errors.js';

export function toQuireError(e: unknown): QuireError {
  if (e instanceof QuireError) return e;
  if (e instanceof RangeError) {
    if (/call stack/i.test(e.message)) {
      return new QuireError('54001', 'stack depth limit exceeded', { hint: 'The statement is nested too deeply or has too many terms; simplify it or split it up.' });
    }
    if (/Invalid string length/i.test(e.message)) {
      return new QuireError('54000', 'result string is too long', { detail: 'A string value can hold at most about 512 MB.' });
    }
    if (/Invalid (typed )?array length|allocation failed|Array buffer allocation/i.test(e.message)) {
      return new QuireError('53200', 'out of memory', { detail: e.message });
    }
  }
  return new QuireError('XX000', `internal error: ${e instanceof Error ? e.message : String(e)}`);
}

/** True when `e` is a server bug rather than a failure the request itself caused. */
export function isInternal(e: unknown): boolean {
  return toQuireError(e).code.startsWith('XX');
}

/** Functions that return a single match reject the 'g' flag, naming themselves as PostgreSQL does. */
import { err, SQLSTATE } from '../../../common/errors.js';

export function rejectGlobal(fn: string, flags: string): void {
  if (flags.includes('g')) {
    throw err(SQLSTATE.invalidParameterValue, `${fn}() does not support the "global" option`, undefined, {
      hint: fn === 'regexp_like' ? undefined : 'Use the regexp_matches function instead.',
    });
  }
}

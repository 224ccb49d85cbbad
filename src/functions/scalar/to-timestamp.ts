/** to_timestamp(text, template) in the session zone (or TZH/TZM), and to_timestamp(unix seconds). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { err, SQLSTATE } from '../../common/errors.js';
import { checkTimestamp, fromLocal, isValidTimestamp } from './support/datetime.js';
import { parseDateTime } from './support/to-timestamp.js';
import { formatG, rint } from './support/float.js';
import { addMicros, normMicros, type Micros } from '../../common/datetime-calendar.js';

function fromEpoch(_c: EvalContext, secs: number): Micros {
  if (Number.isNaN(secs)) throw err(SQLSTATE.datetimeFieldOverflow, 'timestamp cannot be NaN');
  if (!Number.isFinite(secs)) return secs;
  const us = rint(secs * 1_000_000);
  if (!isValidTimestamp(us)) {
    throw err(SQLSTATE.datetimeFieldOverflow, `timestamp out of range: "${formatG(secs)}"`);
  }
  // Beyond 2^53 the double is still a whole number: PostgreSQL converts that same value to int64.
  return Number.isSafeInteger(us) ? us : normMicros(BigInt(us));
}

function parse(c: EvalContext, s: string, fmt: string): Micros {
  const p = parseDateTime(s, fmt);
  return checkTimestamp(p.offset === null ? fromLocal(c.timezone, p.local) : addMicros(p.local, -p.offset * 1_000_000));
}

registerScalar(
  'to_timestamp',
  { args: ['float8'], returns: T.timestamptz, fn: fromEpoch },
  { args: ['text', 'text'], returns: T.timestamptz, fn: parse },
);

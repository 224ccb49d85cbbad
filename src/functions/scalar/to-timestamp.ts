/** to_timestamp(text, template) in the session zone (or TZH/TZM), and to_timestamp(unix seconds). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { err, SQLSTATE } from '../../common/errors.js';
import { checkTimestamp, fromLocal, isValidTimestamp } from './support/datetime.js';
import { parseDateTime } from './support/to-timestamp.js';
import { formatG, rint } from './support/float.js';

function fromEpoch(_c: EvalContext, secs: number): number {
  if (Number.isNaN(secs)) throw err(SQLSTATE.datetimeFieldOverflow, 'timestamp cannot be NaN');
  if (!Number.isFinite(secs)) return secs;
  const us = rint(secs * 1_000_000);
  if (!isValidTimestamp(us)) {
    throw err(SQLSTATE.datetimeFieldOverflow, `timestamp out of range: "${formatG(secs)}"`);
  }
  return us;
}

function parse(c: EvalContext, s: string, fmt: string): number {
  const p = parseDateTime(s, fmt);
  return checkTimestamp(p.offset === null ? fromLocal(c.timezone, p.local) : p.local - p.offset * 1_000_000);
}

registerScalar(
  'to_timestamp',
  { args: ['float8'], returns: T.timestamptz, fn: fromEpoch },
  { args: ['text', 'text'], returns: T.timestamptz, fn: parse },
);

/**
 * date_bin(stride, source, origin): source rounded down to the start of its stride-wide bin counted
 * from origin. timestamp and timestamptz share PostgreSQL's code, which works on the stored instant,
 * so the session time zone never matters. The arithmetic is on BigInt: timestamps beyond ~2^53 µs are
 * not exact doubles, and PostgreSQL's int64 overflow checks must fire at the same points.
 */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { Interval } from '../../common/interval.js';
import { err, SQLSTATE } from '../../common/errors.js';
import { isFiniteMicros, normMicros, type Micros } from '../../common/datetime-calendar.js';
import { intervalOutOfRange, isValidTimestamp, timestampOutOfRange } from './support/datetime.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const MICROS_PER_DAY = 86_400_000_000n;

function dateBin(stride: Interval, ts: Micros, origin: Micros): Micros {
  if (!isFiniteMicros(ts)) return ts;
  if (!isFiniteMicros(origin)) throw err(SQLSTATE.datetimeFieldOverflow, 'origin out of range');
  if (!stride.isFinite()) throw err(SQLSTATE.datetimeFieldOverflow, 'timestamps cannot be binned into infinite intervals');
  if (stride.months !== 0) throw err(SQLSTATE.featureNotSupported, 'timestamps cannot be binned into intervals containing months or years');
  const step = BigInt(stride.days) * MICROS_PER_DAY + BigInt(stride.micros);
  if (step < INT64_MIN || step > INT64_MAX) intervalOutOfRange();
  if (step <= 0n) throw err(SQLSTATE.datetimeFieldOverflow, 'stride must be greater than zero');
  const o = BigInt(origin);
  const diff = BigInt(ts) - o;
  if (diff < INT64_MIN || diff > INT64_MAX) intervalOutOfRange();
  const rem = diff % step;
  let r = o + diff - rem;
  // Round toward -infinity, not zero; only this step can leave the range.
  if (rem < 0n) {
    r -= step;
    if (r < INT64_MIN || !isValidTimestamp(r)) timestampOutOfRange();
  }
  return normMicros(r);
}

registerScalar(
  'date_bin',
  {
    args: ['interval', 'timestamp', 'timestamp'],
    returns: T.timestamp,
    fn: (_c: EvalContext, s: Interval, ts: Micros, o: Micros) => dateBin(s, ts, o),
  },
  {
    args: ['interval', 'timestamptz', 'timestamptz'],
    returns: T.timestamptz,
    fn: (_c: EvalContext, s: Interval, ts: Micros, o: Micros) => dateBin(s, ts, o),
  },
);

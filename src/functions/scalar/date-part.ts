/** date_part(text, …) → float8. date_part(text, date) goes through timestamp, as PostgreSQL's SQL wrapper does. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { Interval } from '../../common/interval.js';
import type { TimeTz } from '../../common/time-of-day.js';
import type { Micros } from '../../common/datetime-calendar.js';
import { dateToTimestamp } from './support/datetime.js';
import { extractInterval, extractTime, extractTimestamp, type Extracted } from './support/extract.js';

const float = (r: Extracted): number | null => (r === null ? null : r.float);

registerScalar(
  'date_part',
  {
    args: ['text', 'timestamp'],
    returns: T.float8,
    fn: (_c: EvalContext, u: string, t: Micros) => float(extractTimestamp(u, t, null)),
  },
  {
    args: ['text', 'timestamptz'],
    returns: T.float8,
    fn: (c: EvalContext, u: string, t: Micros) => float(extractTimestamp(u, t, c.timezone)),
  },
  {
    args: ['text', 'date'],
    returns: T.float8,
    fn: (_c: EvalContext, u: string, d: number) => float(extractTimestamp(u, dateToTimestamp(d), null)),
  },
  {
    args: ['text', 'interval'],
    returns: T.float8,
    fn: (_c: EvalContext, u: string, iv: Interval) => float(extractInterval(u, iv)),
  },
  { args: ['text', 'time'], returns: T.float8, fn: (_c: EvalContext, u: string, t: number) => float(extractTime(u, t, null)) },
  { args: ['text', 'timetz'], returns: T.float8, fn: (_c: EvalContext, u: string, t: TimeTz) => float(extractTime(u, t.micros, t.offset)) },
);

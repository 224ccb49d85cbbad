/** extract(field FROM x) → numeric (PostgreSQL 14+), bound by the parser as extract(text, x). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { Micros } from '../../common/datetime-calendar.js';
import type { Numeric } from '../../common/numeric.js';
import type { Interval } from '../../common/interval.js';
import type { TimeTz } from '../../common/time-of-day.js';
import { extractDate, extractInterval, extractTime, extractTimestamp, type Extracted } from './support/extract.js';

const numeric = (r: Extracted): Numeric | null => (r === null ? null : r.numeric());

registerScalar(
  'extract',
  {
    args: ['text', 'timestamp'],
    returns: T.numeric,
    fn: (_c: EvalContext, u: string, t: Micros) => numeric(extractTimestamp(u, t, null)),
  },
  {
    args: ['text', 'timestamptz'],
    returns: T.numeric,
    fn: (c: EvalContext, u: string, t: Micros) => numeric(extractTimestamp(u, t, c.timezone)),
  },
  { args: ['text', 'date'], returns: T.numeric, fn: (_c: EvalContext, u: string, d: number) => numeric(extractDate(u, d)) },
  {
    args: ['text', 'interval'],
    returns: T.numeric,
    fn: (_c: EvalContext, u: string, iv: Interval) => numeric(extractInterval(u, iv)),
  },
  { args: ['text', 'time'], returns: T.numeric, fn: (_c: EvalContext, u: string, t: number) => numeric(extractTime(u, t, null)) },
  { args: ['text', 'timetz'], returns: T.numeric, fn: (_c: EvalContext, u: string, t: TimeTz) => numeric(extractTime(u, t.micros, t.offset)) },
);

/** make_timestamp(year, month, day, hour, min, sec). */
import { registerParamNames, registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { joinMicros } from '../../common/datetime-calendar.js';
import { checkTimestamp } from './support/datetime.js';
import { makeDays, makeTimeMicros } from './support/make.js';

registerScalar('make_timestamp', {
  args: ['int4', 'int4', 'int4', 'int4', 'int4', 'float8'],
  returns: T.timestamp,
  fn: (_c: EvalContext, y: number, m: number, d: number, h: number, mi: number, s: number) =>
    checkTimestamp(joinMicros(makeDays(y, m, d), makeTimeMicros(h, mi, s))),
});
registerParamNames('make_timestamp', ['year', 'month', 'mday', 'hour', 'min', 'sec']);

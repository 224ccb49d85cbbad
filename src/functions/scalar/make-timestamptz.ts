/** make_timestamptz(year, month, day, hour, min, sec[, zone]): wall clock in the session or given zone. */
import { registerParamNames, registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { joinMicros, type Micros } from '../../common/datetime-calendar.js';
import { checkTimestamp, fromLocal } from './support/datetime.js';
import { makeDays, makeTimeMicros } from './support/make.js';

const make = (zone: string, y: number, m: number, d: number, h: number, mi: number, s: number): Micros =>
  checkTimestamp(fromLocal(zone, joinMicros(makeDays(y, m, d), makeTimeMicros(h, mi, s))));

registerScalar(
  'make_timestamptz',
  {
    args: ['int4', 'int4', 'int4', 'int4', 'int4', 'float8'],
    returns: T.timestamptz,
    fn: (c: EvalContext, y: number, m: number, d: number, h: number, mi: number, s: number) => make(c.timezone, y, m, d, h, mi, s),
  },
  {
    args: ['int4', 'int4', 'int4', 'int4', 'int4', 'float8', 'text'],
    returns: T.timestamptz,
    fn: (_c: EvalContext, y: number, m: number, d: number, h: number, mi: number, s: number, z: string) => make(z, y, m, d, h, mi, s),
  },
);
registerParamNames('make_timestamptz', ['year', 'month', 'mday', 'hour', 'min', 'sec', 'timezone']);

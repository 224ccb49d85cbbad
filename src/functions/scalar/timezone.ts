/**
 * timezone(zone, x), the function behind x AT TIME ZONE zone: a timestamptz becomes the wall clock
 * in that zone (timestamp), and a timestamp is read as a wall clock there (timestamptz).
 */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { Micros } from '../../common/datetime-calendar.js';
import { checkTimestamp, fromLocal, toLocal } from './support/datetime.js';

registerScalar(
  'timezone',
  { args: ['text', 'timestamptz'], returns: T.timestamp, fn: (_c: EvalContext, z: string, t: Micros) => checkTimestamp(toLocal(z, t)) },
  { args: ['text', 'timestamp'], returns: T.timestamptz, fn: (_c: EvalContext, z: string, t: Micros) => checkTimestamp(fromLocal(z, t)) },
);

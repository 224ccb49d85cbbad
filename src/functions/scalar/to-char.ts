/** to_char(timestamp | timestamptz, pattern): datetime templates (numeric templates are not supported yet). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { utcOffsetSeconds } from '../../common/timezone.js';
import { toChar } from './support/to-char.js';
import { addMicros, isFiniteMicros, type Micros } from '../../common/datetime-calendar.js';

// PostgreSQL returns NULL for an empty pattern and for infinite timestamps.
function tsChar(_c: EvalContext, ts: Micros, fmt: string): string | null {
  if (fmt === '' || !isFiniteMicros(ts)) return null;
  return toChar(ts, null, null, fmt);
}

function tstzChar(c: EvalContext, ts: Micros, fmt: string): string | null {
  if (fmt === '' || !isFiniteMicros(ts)) return null;
  const off = utcOffsetSeconds(c.timezone, ts);
  return toChar(addMicros(ts, off * 1_000_000), off, c.timezone, fmt);
}

registerScalar(
  'to_char',
  { args: ['timestamp', 'text'], returns: T.text, fn: tsChar },
  { args: ['timestamptz', 'text'], returns: T.text, fn: tstzChar },
);

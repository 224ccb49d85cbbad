/**
 * to_char(value, template): datetime templates for timestamp / timestamptz, numeric templates for the
 * integer, numeric and float types (int2 arrives as int4, as in PostgreSQL).
 */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { utcOffsetSeconds } from '../../common/timezone.js';
import { toChar } from './support/to-char.js';
import { float4ToChar, float8ToChar, int4ToChar, int8ToChar, numericToChar } from './support/to-char-numeric.js';
import type { Numeric } from '../../common/numeric.js';
import type { Int8 } from './support/int.js';
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
  { args: ['int4', 'text'], returns: T.text, fn: (_c: EvalContext, v: number, fmt: string) => int4ToChar(v, fmt) },
  { args: ['int8', 'text'], returns: T.text, fn: (_c: EvalContext, v: Int8, fmt: string) => int8ToChar(v, fmt) },
  { args: ['numeric', 'text'], returns: T.text, fn: (_c: EvalContext, v: Numeric, fmt: string) => numericToChar(v, fmt) },
  { args: ['float4', 'text'], returns: T.text, fn: (_c: EvalContext, v: number, fmt: string) => float4ToChar(v, fmt) },
  { args: ['float8', 'text'], returns: T.text, fn: (_c: EvalContext, v: number, fmt: string) => float8ToChar(v, fmt) },
);

/** to_date(text, template). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { splitMicros } from '../../common/datetime-calendar.js';
import { checkDate } from './support/datetime.js';
import { parseDateTime } from './support/to-timestamp.js';

registerScalar('to_date', {
  args: ['text', 'text'],
  returns: T.date,
  fn: (_c: EvalContext, s: string, fmt: string) => checkDate(splitMicros(parseDateTime(s, fmt).local).days),
});

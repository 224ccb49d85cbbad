/** nextval(sequence): advances the sequence and returns its new value; volatile, so once per row. */
import { registerScalar } from '../registry.js';
import { QuireError } from '../../common/errors.js';
import { T } from '../../common/types.js';
import type { EvalContext, SequenceAccess } from '../eval-context.js';

/** The session's sequences, or the error PostgreSQL gives for a relation that is not there. */
export function sequencesOf(c: EvalContext): SequenceAccess {
  if (c.sequences === undefined) throw new QuireError('0A000', 'sequences are not available here');
  return c.sequences;
}

registerScalar('nextval', { args: ['text'], returns: T.int8, volatile: true, fn: (c: EvalContext, name: string) => sequencesOf(c).nextval(name) });

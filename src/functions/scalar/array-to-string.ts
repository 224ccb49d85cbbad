/**
 * array_to_string(a, delimiter[, null_string]): the elements in their output form, joined; nulls are
 * skipped unless null_string is given.
 */
import { registerScalar } from '../registry.js';
import { elementType, T, type ArrayValue, type DataType } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { textOf, type TextOf } from './support/any-text.js';

function join(c: EvalContext, text: TextOf, a: ArrayValue, delim: string, nullString: string | null): string {
  const parts: string[] = [];
  for (const e of a) {
    if (e !== null) parts.push(text(e, c));
    else if (nullString !== null) parts.push(nullString);
  }
  return parts.join(delim);
}

const textOfElements = (types: readonly DataType[]): TextOf => textOf(elementType(types[0]!));

registerScalar(
  'array_to_string',
  {
    args: ['anyarray', 'text'],
    returns: T.text,
    fn: (c: EvalContext, a: ArrayValue, d: string) => join(c, textOf(T.text), a, d, null),
    specialize: (types) => {
      const text = textOfElements(types);
      return (c: EvalContext, a: ArrayValue, d: string) => join(c, text, a, d, null);
    },
  },
  {
    args: ['anyarray', 'text', 'text'],
    returns: T.text,
    strict: false,
    // Only the array and the delimiter make the result null; a null null_string means "skip nulls".
    fn: (c: EvalContext, a: ArrayValue | null, d: string | null, n: string | null) => (a === null || d === null ? null : join(c, textOf(T.text), a, d, n)),
    specialize: (types) => {
      const text = textOfElements(types);
      return (c: EvalContext, a: ArrayValue | null, d: string | null, n: string | null) => (a === null || d === null ? null : join(c, text, a, d, n));
    },
  },
);

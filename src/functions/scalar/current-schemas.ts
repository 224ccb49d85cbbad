/** current_schemas(include_implicit): the effective search path as text[] (PostgreSQL returns name[]). */
import { registerScalar } from '../registry.js';
import { T, type TextArray } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { searchPath } from './support/search-path.js';

registerScalar('current_schemas', {
  args: ['bool'],
  returns: T._text,
  fn: (c: EvalContext, implicit: boolean): TextArray => searchPath(c, implicit),
});

/** current_schema(): the first schema of the effective search path, null when none exists. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { searchPath } from './support/search-path.js';

registerScalar('current_schema', { args: [], returns: T.name, fn: (c: EvalContext) => searchPath(c, false)[0] ?? null });

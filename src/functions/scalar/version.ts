/** version(): identifies as the PostgreSQL release whose behaviour Quire follows. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

registerScalar('version', { args: [], returns: T.text, fn: (_c: EvalContext) => 'PostgreSQL 16.0 (Quire)' });

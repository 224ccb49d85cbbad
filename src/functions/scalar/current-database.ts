/**
 * current_database() (and current_catalog): the database a PostgreSQL-protocol client named when it
 * connected, as PostgreSQL answers; "quire" for the library and REST, which name none.
 */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

registerScalar('current_database', { args: [], returns: T.name, fn: (c: EvalContext) => c.setting('quire.database') ?? 'quire' });

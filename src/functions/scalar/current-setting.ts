/** current_setting(name[, missing_ok]): unknown settings are 42704 unless missing_ok. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { err, SQLSTATE } from '../../common/errors.js';

function get(c: EvalContext, name: string, missingOk: boolean): string | null {
  const v = c.setting(name.toLowerCase());
  if (v !== undefined) return v;
  if (missingOk) return null;
  throw err(SQLSTATE.undefinedObject, `unrecognized configuration parameter "${name}"`);
}

registerScalar(
  'current_setting',
  { args: ['text'], returns: T.text, fn: (c: EvalContext, n: string) => get(c, n, false) },
  { args: ['text', 'bool'], returns: T.text, fn: (c: EvalContext, n: string, m: boolean) => get(c, n, m) },
);

/**
 * `(r).f`: one field of a composite value. Built by the binder for field selection (a name, not a
 * callable function); NULL in, NULL out, as PostgreSQL's FieldSelect.
 */
import type { RecordValue } from '../../common/record-value.js';
import type { DataType } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { ScalarImpl, ScalarOverload } from '../registry.js';

export function recordField(index: number, fieldType: DataType): ScalarOverload {
  return {
    args: ['record'],
    returns: fieldType,
    strict: true,
    fn: ((_c: EvalContext, r: RecordValue): unknown => r.fields[index] ?? null) as ScalarImpl,
  };
}

/**
 * `(r).f`: one field of a composite value. Built by the binder for field selection (a name, not a
 * callable function); NULL in, NULL out, as PostgreSQL's FieldSelect.
 */
import type { RecordValue } from '../../common/record-value.js';
import type { CompositeType } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { ScalarImpl, ScalarOverload } from '../registry.js';

const overloads = new WeakMap<CompositeType, ScalarOverload[]>();

/** One overload per field of a type, so that equal field selections compare equal (GROUP BY (x).a). */
export function recordField(c: CompositeType, index: number): ScalarOverload {
  let list = overloads.get(c);
  if (list === undefined) {
    list = c.fields.map((f, i) => ({
      args: ['record'],
      returns: f.type,
      strict: true,
      fn: ((_c: EvalContext, r: RecordValue): unknown => r.fields[i] ?? null) as ScalarImpl,
    }));
    overloads.set(c, list);
  }
  return list[index]!;
}

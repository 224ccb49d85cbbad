/**
 * ROW(a, b), (a, b) and a whole-row reference to a FROM item as a value: a record of the fields with
 * their types. Not registered under a name: the binder builds these calls for row constructors, which
 * SQL cannot call as functions.
 */
import { RecordValue } from '../../common/record-value.js';
import { T, type DataType, type Value } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { ScalarImpl, ScalarOverload } from '../registry.js';

export const rowConstructor: ScalarOverload = {
  args: ['any'],
  variadic: true,
  returns: T.record,
  // A row of NULLs is still a row (a record value), never a NULL.
  strict: false,
  fn: (() => {
    throw new Error('row constructor called without its field types');
  }) as ScalarImpl,
  specialize: (argTypes: readonly DataType[]): ScalarImpl => {
    const types = [...argTypes];
    return ((_c: EvalContext, ...fields: Value[]) => new RecordValue(fields, types)) as ScalarImpl;
  },
};

/**
 * `r IS NULL` / `r IS NOT NULL` over a record computed at run time: IS NULL when the record is NULL or
 * every field is, IS NOT NULL when it is a record none of whose fields is (so ROW(1, NULL) is neither).
 */
export function recordNullTest(negated: boolean): ScalarOverload {
  return {
    args: ['record'],
    returns: T.bool,
    strict: false,
    fn: ((_c: EvalContext, r: RecordValue | null): boolean => {
      if (r === null) return !negated;
      return negated ? r.fields.every((f) => f !== null) : r.fields.every((f) => f === null);
    }) as ScalarImpl,
  };
}

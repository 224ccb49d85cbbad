/**
 * generate_subscripts(array, dim [, reverse]): the subscripts of the array's dimension `dim`, in order
 * or (reverse true) backwards. Arrays here have one dimension with lower bound 1, so dimension 1 gives
 * 1..length and any other dimension, a NULL array or a NULL argument gives no rows, as in PostgreSQL.
 */
import { QuireError } from '../../common/errors.js';
import { T, isArrayType, typeDisplayName, type ArrayValue, type DataType, type Value } from '../../common/types.js';
import { BATCH_SIZE, makeColumn, type Batch } from '../../common/column.js';
import { canCoerceImplicitly } from '../../common/cast.js';
import type { EvalContext } from '../../functions/eval-context.js';
import type { TableFunction, TableFunctionBinding } from './table-function.js';

function noSuchFunction(argTypes: readonly DataType[]): QuireError {
  return new QuireError('42883', `function generate_subscripts(${argTypes.map(typeDisplayName).join(', ')}) does not exist`, {
    hint: 'No function matches the given name and argument types. You might need to add explicit type casts.',
  });
}

async function* run(args: readonly Value[], signal?: AbortSignal): AsyncGenerator<Batch> {
  const [arr, dim, reverse] = args;
  if (arr === null || dim === null || dim !== 1 || reverse === null) return;
  const n = (arr as ArrayValue).length;
  const backwards = reverse === true;
  for (let start = 0; start < n; start += BATCH_SIZE) {
    signal?.throwIfAborted();
    const len = Math.min(BATCH_SIZE, n - start);
    const data = new Int32Array(len);
    for (let i = 0; i < len; i++) data[i] = backwards ? n - start - i : start + i + 1;
    yield { columns: [makeColumn(T.int4, data, null)], length: len };
  }
}

export const generateSubscripts: TableFunction = {
  name: 'generate_subscripts',
  bind(argTypes: readonly DataType[], _constArgs: readonly (Value | undefined)[], _ctx: EvalContext, namedArgs: ReadonlyMap<string, Value>): TableFunctionBinding {
    if (argTypes.length < 2 || argTypes.length > 3 || namedArgs.size > 0) throw noSuchFunction(argTypes);
    const [arr, dim, reverse] = argTypes as [DataType, DataType, DataType | undefined];
    if (arr.name === 'unknown') throw new QuireError('42804', 'could not determine polymorphic type because input has type unknown');
    if (!isArrayType(arr) || !canCoerceImplicitly(dim, T.int4) || (reverse !== undefined && !canCoerceImplicitly(reverse, T.bool))) throw noSuchFunction(argTypes);
    return {
      schema: [{ name: 'generate_subscripts', type: T.int4 }],
      argTypes: reverse === undefined ? [arr, T.int4] : [arr, T.int4, T.bool],
      execute(args: readonly Value[], _ctx: EvalContext, signal?: AbortSignal): AsyncGenerator<Batch> {
        return run(args.length === 2 ? [...args, false] : args, signal);
      },
    };
  },
};

/**
 * unnest(array [, array …]): one row per element, in array order. With several arrays (FROM only, as in
 * PostgreSQL) they are read in lockstep and the shorter ones give NULLs once they run out. A NULL array
 * is an empty one.
 */
import { QuireError } from '../../common/errors.js';
import { elementType, isArrayType, typeDisplayName, type ArrayValue, type DataType, type Value } from '../../common/types.js';
import { BATCH_SIZE, ColumnBuilder, type Batch } from '../../common/column.js';
import type { EvalContext } from '../../functions/eval-context.js';
import type { TableFunction, TableFunctionBinding } from './table-function.js';

function noSuchFunction(argTypes: readonly DataType[]): QuireError {
  return new QuireError('42883', `function unnest(${argTypes.map(typeDisplayName).join(', ')}) does not exist`, {
    hint: 'No function matches the given name and argument types. You might need to add explicit type casts.',
  });
}

async function* run(types: readonly DataType[], args: readonly Value[], signal?: AbortSignal): AsyncGenerator<Batch> {
  const arrays = args.map((a) => (a ?? []) as ArrayValue);
  const n = Math.max(0, ...arrays.map((a) => a.length));
  for (let start = 0; start < n; start += BATCH_SIZE) {
    signal?.throwIfAborted();
    const end = Math.min(n, start + BATCH_SIZE);
    const columns = arrays.map((a, k) => {
      const b = new ColumnBuilder(types[k]!, end - start);
      for (let i = start; i < end; i++) b.push(i < a.length ? a[i]! : null);
      return b.finish();
    });
    yield { columns, length: end - start };
  }
}

export const unnest: TableFunction = {
  name: 'unnest',
  bind(argTypes: readonly DataType[], _constArgs: readonly (Value | undefined)[], _ctx: EvalContext, namedArgs: ReadonlyMap<string, Value>): TableFunctionBinding {
    if (argTypes.length === 0 || namedArgs.size > 0) throw noSuchFunction(argTypes);
    for (const t of argTypes) {
      if (t.name === 'unknown') {
        throw new QuireError('42804', 'could not determine polymorphic type because input has type unknown');
      }
      if (!isArrayType(t)) throw noSuchFunction(argTypes);
    }
    const types = argTypes.map(elementType);
    return {
      schema: types.map((t) => ({ name: 'unnest', type: t })),
      argTypes: [...argTypes],
      execute(args: readonly Value[], _ctx: EvalContext, signal?: AbortSignal): AsyncGenerator<Batch> {
        return run(types, args, signal);
      },
    };
  },
};

/**
 * f(…) WITH ORDINALITY: the function's rows numbered 1, 2, … in a trailing bigint column, as PostgreSQL
 * adds it (named `ordinality` unless the alias list names it).
 */
import { T, type Schema } from '../../common/types.js';
import { makeColumn, type Batch } from '../../common/column.js';
import type { TableFunctionImpl } from '../../logical/plan.js';

export function withOrdinality(impl: TableFunctionImpl): TableFunctionImpl {
  return {
    execute: (args, ctx, signal, exec) => numbered(impl.execute(args, ctx, signal, exec)),
    describe: () => [impl.describe?.(), 'with ordinality'].filter((x) => x !== undefined && x !== '').join(', '),
    ...(impl.estimatedRows === undefined ? {} : { estimatedRows: impl.estimatedRows }),
  };
}

export function ordinalitySchema(schema: Schema): Schema {
  return [...schema, { name: 'ordinality', type: T.int8 }];
}

async function* numbered(it: AsyncGenerator<Batch>): AsyncGenerator<Batch> {
  let next = 1;
  try {
    for (;;) {
      const r = await it.next();
      if (r.done === true) return;
      const b = r.value;
      const ord = new Float64Array(b.length);
      for (let i = 0; i < b.length; i++) ord[i] = next++;
      yield { columns: [...b.columns, makeColumn(T.int8, ord, null)], length: b.length };
    }
  } finally {
    await it.return(undefined);
  }
}

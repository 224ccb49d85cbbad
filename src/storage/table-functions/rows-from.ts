/**
 * ROWS FROM (f(…), g(…)): several table functions side by side, in lockstep. Row i of the result holds
 * row i of every function; a function that has run out contributes NULLs, and the result ends when the
 * longest one does (PostgreSQL's semantics, also those of several set-returning functions in one select
 * list). The functions keep their own batch sizes: each output batch is as long as the shortest
 * remainder among the batches currently in hand.
 */
import type { Schema, Value } from '../../common/types.js';
import { BATCH_SIZE, constantColumn, sliceBatch, type Batch, type Column } from '../../common/column.js';
import type { StatementContext } from '../../logical/statement-context.js';
import type { EvalContext } from '../../functions/eval-context.js';
import type { TableFunctionImpl } from '../../logical/plan.js';

export interface RowsFromPart {
  readonly name: string;
  readonly impl: TableFunctionImpl;
  /** How many of the combined arguments are this function's (they come in function order). */
  readonly argCount: number;
  readonly schema: Schema;
}

export function rowsFrom(parts: readonly RowsFromPart[]): TableFunctionImpl {
  return {
    execute: (args, ctx, signal, exec) => zip(parts, args, ctx, signal, exec),
    // The arguments print after the name, in function order: say which belong to which function.
    describe: () => `functions: ${parts.map((p) => `${p.name}(${p.argCount} args)${p.impl.describe ? ` [${p.impl.describe()}]` : ''}`).join(', ')}`,
    estimatedRows: Math.max(0, ...parts.map((p) => p.impl.estimatedRows ?? 0)) || undefined,
  };
}

interface Stream {
  readonly it: AsyncGenerator<Batch>;
  readonly schema: Schema;
  batch: Batch | null;
  at: number;
  done: boolean;
}

async function* zip(parts: readonly RowsFromPart[], args: readonly Value[], ctx: EvalContext, signal?: AbortSignal, exec?: StatementContext): AsyncGenerator<Batch> {
  const streams: Stream[] = [];
  let a = 0;
  for (const p of parts) {
    streams.push({ it: p.impl.execute(args.slice(a, a + p.argCount), ctx, signal, exec), schema: p.schema, batch: null, at: 0, done: false });
    a += p.argCount;
  }
  try {
    for (;;) {
      // Refill every stream whose batch is used up; a stream that ends stays done.
      for (const s of streams) {
        while (!s.done && (s.batch === null || s.at >= s.batch.length)) {
          const r = await s.it.next();
          if (r.done === true) s.done = true;
          else {
            s.batch = r.value;
            s.at = 0;
          }
        }
      }
      let n = BATCH_SIZE;
      let live = false;
      for (const s of streams) {
        if (s.done) continue;
        live = true;
        n = Math.min(n, s.batch!.length - s.at);
      }
      if (!live) return;
      const columns: Column[] = [];
      for (const s of streams) {
        if (s.done) {
          for (const f of s.schema) columns.push(constantColumn(f.type, null, n));
          continue;
        }
        columns.push(...sliceBatch(s.batch!, s.at, s.at + n).columns);
        s.at += n;
      }
      yield { columns, length: n };
    }
  } finally {
    for (const s of streams) if (!s.done) await s.it.return(undefined);
  }
}

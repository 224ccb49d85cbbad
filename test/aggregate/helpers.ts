/** Shared pieces of the aggregate suites: an in-memory source operator, an ExecContext, PGlite loading. */
import type { PGlite } from '@electric-sql/pglite';
import { formatValue } from '../../src/common/format-value.js';
import type { DataType, Schema, Value } from '../../src/common/types.js';
import { batchRows, ColumnBuilder, type Batch } from '../../src/common/column.js';
import { makeExecContext, type ExecContext } from '../../src/execution/context.js';
import { lookupAggregate } from '../../src/functions/aggregate/registry.js';
import type { ResolvedAggregate } from '../../src/functions/aggregate/aggregate-function.js';
import { PhysicalOperator } from '../../src/physical/operator.js';
import { HashAggregate, type HashAggSpec } from '../../src/physical/operators/hash-aggregate.js';

export class BatchSource extends PhysicalOperator {
  readonly name = 'BatchSource';
  constructor(
    schema: Schema,
    private readonly batches: readonly Batch[],
  ) {
    super(schema);
  }
  children(): readonly PhysicalOperator[] {
    return [];
  }
  describe(): string {
    return `${this.batches.length} batches`;
  }
  protected async *run(): AsyncGenerator<Batch> {
    for (const b of this.batches) yield b;
  }
}

export function testContext(): ExecContext {
  return makeExecContext({
    eval: {
      timezone: 'UTC',
      statementTime: 0,
      transactionTime: 0,
      random: () => 0.5,
      setSeed: () => {},
      setting: () => undefined,
    },
    params: [],
    analyze: false,
  });
}

/** Rows (row-major) → batches of the given sizes (cycled), through ColumnBuilder like real operators. */
export function toBatches(types: readonly DataType[], rows: readonly (readonly Value[])[], sizes: readonly number[] = [4096]): Batch[] {
  const out: Batch[] = [];
  let i = 0;
  let s = 0;
  while (i < rows.length) {
    const n = Math.min(sizes[s++ % sizes.length]!, rows.length - i);
    const bs = types.map((t) => new ColumnBuilder(t, n));
    for (let k = 0; k < n; k++) {
      const r = rows[i + k]!;
      for (let c = 0; c < types.length; c++) bs[c]!.push(r[c]!);
    }
    out.push({ columns: bs.map((b) => b.finish()), length: n });
    i += n;
  }
  return out;
}

export async function collect(op: PhysicalOperator, ctx = testContext()): Promise<Value[][]> {
  const rows: Value[][] = [];
  for await (const b of op.execute(ctx)) rows.push(...batchRows(b));
  return rows;
}

export function resolve(name: string, types: DataType[]): ResolvedAggregate {
  const r = lookupAggregate(name)?.resolve(types);
  if (!r) throw new Error(`no aggregate ${name}(${types.map((t) => t.name).join(', ')})`);
  return r;
}

/** Runs one aggregate over single-column rows without GROUP BY. */
export async function aggOne(name: string, types: DataType[], rows: Value[][], extra: Partial<HashAggSpec> = {}): Promise<Value> {
  const impl = resolve(name, types);
  const schema = types.map((type, i) => ({ name: `c${i}`, type }));
  const src = new BatchSource(schema, toBatches(types, rows, [3, 1000]));
  const op = new HashAggregate(src, {
    keyCount: 0,
    keyTypes: [],
    aggs: [{ impl, argCols: types.map((_, i) => i), filterCol: null, distinct: false, orderBy: [], ...extra }],
  });
  const out = await collect(op);
  return out[0]![0]!;
}

export function fmt(v: Value, t: DataType): string | null {
  return formatValue(v, t, { timezone: 'UTC' });
}

/** PGlite parsers that keep every value as PostgreSQL's text output. */
export async function rawParsers(pg: PGlite): Promise<Record<number, (v: string) => string>> {
  const r = await pg.query<[number]>('SELECT oid::int4 FROM pg_type', [], { rowMode: 'array' });
  const parsers: Record<number, (v: string) => string> = {};
  for (const [oid] of r.rows) parsers[oid] = (v: string) => v;
  return parsers;
}

export const SQL_TYPE: Record<string, string> = {
  bool: 'boolean',
  int2: 'int2',
  int4: 'int4',
  int8: 'int8',
  float4: 'float4',
  float8: 'float8',
  numeric: 'numeric',
  text: 'text',
  date: 'date',
  timestamp: 'timestamp',
  timestamptz: 'timestamptz',
  interval: 'interval',
};

/** Creates table `name` in PGlite with these columns and rows, inserted in row order. */
export async function loadTable(
  pg: PGlite,
  name: string,
  cols: readonly { name: string; type: DataType }[],
  rows: readonly (readonly Value[])[],
): Promise<void> {
  await pg.exec(`drop table if exists ${name}; create table ${name} (${cols.map((c) => `${c.name} ${SQL_TYPE[c.type.name]}`).join(', ')})`);
  const params = cols.map((c, ci) => rows.map((r) => fmt(r[ci]!, c.type)));
  const u = cols.map((_, i) => `u${i}`);
  const sql =
    `insert into ${name} select ${cols.map((c, i) => `u${i}::${SQL_TYPE[c.type.name]}`).join(', ')} ` +
    `from unnest(${cols.map((_, i) => `$${i + 1}::text[]`).join(', ')}) with ordinality as x(${u.join(', ')}, ord) order by ord`;
  await pg.query(sql, params);
}

import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { castValue } from '../../src/common/cast.js';
import { formatValue } from '../../src/common/format-value.js';
import { parseValue } from '../../src/common/parse-value.js';
import { T, typeDisplayName, type DataType, type TypeName, type Value } from '../../src/common/types.js';
import { BATCH_SIZE, batchRows } from '../../src/common/column.js';
import type { EvalContext } from '../../src/functions/eval-context.js';
import { generateSeries } from '../../src/storage/table-functions/generate-series.js';
import { lookupTableFunction } from '../../src/storage/table-functions/table-function.js';
import '../../src/storage/table-functions/index.js';
import { newPGlite } from '../common/pglite.js';

export function evalCtx(timezone = 'UTC'): EvalContext {
  return { timezone, statementTime: 0, transactionTime: 0, random: () => 0, setSeed: () => {}, setting: () => undefined };
}

let pg: PGlite;
beforeAll(async () => {
  pg = newPGlite();
});
afterAll(async () => {
  await pg.close();
});

interface Outcome {
  type?: string;
  rows?: (string | null)[];
  code?: string;
  message?: string;
}

/** Args are `literal::type` (or a bare quoted literal for unknown, or `null::type`). */
function parseArg(a: string, tz: string): { type: DataType; value: Value } {
  const m = /^(.*)::([a-z0-9]+)$/s.exec(a);
  if (m === null) return { type: T.unknown, value: a.replace(/^'|'$/g, '') };
  const t = T[m[2] as TypeName];
  if (m[1] === 'null') return { type: t, value: null };
  return { type: t, value: parseValue(m[1]!.replace(/^'|'$/g, ''), t, { timezone: tz }) };
}

async function ours(args: string[], tz: string, limit: number): Promise<Outcome> {
  try {
    const parsed = args.map((a) => parseArg(a, tz));
    const b = generateSeries.bind(
      parsed.map((p) => p.type),
      parsed.map((p) => p.value),
      evalCtx(tz),
      new Map(),
    );
    // What the binder's coercion does for unknown literals.
    const vals = parsed.map((p, i) =>
      p.type.name === 'unknown' && p.value !== null ? parseValue(p.value as string, b.argTypes[i]!, { timezone: tz }) : castValue(p.value, p.type, b.argTypes[i]!, { timezone: tz }, false),
    );
    const t = b.schema[0]!.type;
    const rows: (string | null)[] = [];
    for await (const batch of b.execute(vals, evalCtx(tz))) {
      for (const r of batchRows(batch)) {
        if (rows.length < limit) rows.push(formatValue(r[0]!, t, { timezone: tz }));
      }
      if (rows.length >= limit) break;
    }
    return { type: typeDisplayName(t), rows };
  } catch (e) {
    const x = e as { code?: string; message?: string };
    return { code: x.code, message: x.message };
  }
}

async function theirs(args: string[], tz: string, limit: number): Promise<Outcome> {
  try {
    await pg.query(`set timezone = '${tz}'`);
    const sql = `select g::text, pg_typeof(g)::text from generate_series(${args.join(', ')}) g limit ${limit}`;
    const r = await pg.query<[string | null, string]>(sql, [], { rowMode: 'array' });
    let type = r.rows[0]?.[1];
    if (type === undefined) {
      const d = await pg.query<[string]>(`select pg_typeof(g)::text from generate_series(${args.join(', ')}) g right join (select 1) x on true`, [], { rowMode: 'array' });
      type = d.rows[0]![0];
    }
    return { type, rows: r.rows.map((x) => x[0]) };
  } catch (e) {
    const x = e as { code?: string; message?: string };
    return { code: x.code, message: x.message };
  }
}

const CASES: [string[], string?][] = [
  [['1::int4', '5::int4']],
  [['5::int4', '1::int4']],
  [['1::int4', '10::int4', '3::int4']],
  [['10::int4', '1::int4', "'-3'::int4"]],
  [['1::int4', '10::int4', "'-1'::int4"]],
  [['1::int4', '1::int4', '0::int4']],
  [['1::int4', '5::int4', '0::int4']],
  [['2147483640::int4', '2147483647::int4', '3::int4']],
  [['2147483646::int4', '2147483647::int4']],
  [["'-2147483647'::int4", "'-2147483648'::int4", "'-1'::int4"]],
  [["'-2147483648'::int4", '2147483647::int4', '2147483647::int4']],
  [['null::int4', '5::int4']],
  [['1::int4', '5::int4', 'null::int4']],
  [['1::int4', "'3'"]],
  [["'1'", "'3'"]],
  [['1::int2', '3::int2']],
  [['1::int4', '3::int8']],
  [['9007199254740990::int8', '9007199254740995::int8']],
  [['9223372036854775800::int8', '9223372036854775807::int8', '2::int8']],
  [['9223372036854775806::int8', '9223372036854775807::int8']],
  [["'-9223372036854775807'::int8", "'-9223372036854775808'::int8", "'-1'::int8"]],
  [["'-9223372036854775808'::int8", '9223372036854775807::int8', '4611686018427387904::int8']],
  [['1::int8', '10::int8', '0::int8']],
  [['1::numeric', '2::numeric', '0.5::numeric']],
  [['1.0::numeric', '2::numeric', '0.5::numeric']],
  [['1::numeric', '2::numeric', '0.50::numeric']],
  [['1::int4', '2::int4', '0.3::numeric']],
  [['2::numeric', '1::numeric', "'-0.25'::numeric"]],
  [['1::numeric', '3::numeric']],
  [['1::numeric', '3::numeric', '0::numeric']],
  [["'nan'::numeric", '3::numeric']],
  [['1::numeric', "'nan'::numeric"]],
  [['1::numeric', '3::numeric', "'nan'::numeric"]],
  [["'infinity'::numeric", '3::numeric']],
  [['1::numeric', "'-infinity'::numeric"]],
  [['1::numeric', '3::numeric', "'infinity'::numeric"]],
  [['99999999999999999999::numeric', '100000000000000000002::numeric']],
  [['1.5::float8', '3::int4']],
  [['1::int4', '2::int4', '3.5::float8']],
  [["'a'::text", "'b'"]],
  [['1::int4']],
  [["'2020-01-01'::timestamp", "'2020-01-02'::timestamp", "'6 hours'::interval"]],
  [["'2020-01-02'::timestamp", "'2020-01-01'::timestamp", "'-8 hours'::interval"]],
  [["'2020-01-02'::timestamp", "'2020-01-01'::timestamp", "'8 hours'::interval"]],
  [["'2020-01-31'::timestamp", "'2020-06-01'::timestamp", "'1 month'::interval"]],
  [["'2020-01-01'::timestamp", "'2020-01-02'::timestamp", "'0 days'::interval"]],
  [["'2020-01-01'::timestamp", "'2020-01-02'::timestamp", "'1 mon -30 days'::interval"]],
  [["'2020-01-01'::timestamp", "'2020-01-02'::timestamp", "'infinity'::interval"]],
  [["'2020-01-01'::timestamp", "'2020-01-02'::timestamp", 'null::interval']],
  [["'2020-01-01'::date", "'2020-01-03'::date", "'1 day'::interval"]],
  [["'2020-01-01'", "'2020-01-03'", "'1 day'::interval"]],
  [["'2020-01-01'::timestamp", "'2020-01-03'", "'1 day'"]],
  [["'2020-01-01'", "'2020-01-03'", "'1 day'"]],
  [["'2024-03-09 12:00'::timestamptz", "'2024-03-12 12:00'::timestamptz", "'1 day'::interval"], 'America/New_York'],
  [["'2024-03-09 12:00'::timestamptz", "'2024-03-12 12:00'::timestamptz", "'24 hours'::interval"], 'America/New_York'],
  [["'2024-10-26 00:00+00'::timestamptz", "'2024-10-29 00:00+00'::timestamptz", "'1 day'::interval", "'Europe/Paris'::text"]],
  [["'2024-01-01'::timestamptz", "'2024-01-02'::timestamptz", "'1 day'::interval", "'Nowhere/Land'::text"]],
  [["'294276-12-30'::timestamp", "'infinity'::timestamp", "'1 day'::interval"]],
];

describe('generate_series matches PostgreSQL', () => {
  it.each(CASES)('generate_series(%j) tz=%s', async (args, tz) => {
    const want = await theirs(args, tz ?? 'UTC', 50);
    const got = await ours(args, tz ?? 'UTC', 50);
    expect(got).toEqual(want);
  });

  it('streams in BATCH_SIZE batches without materialising', async () => {
    const b = generateSeries.bind([T.int4, T.int4], [1, 100_000_000], evalCtx(), new Map());
    expect(b.estimatedRows).toBe(100_000_000);
    const gen = b.execute([1, 100_000_000], evalCtx());
    const first = await gen.next();
    expect(first.done).toBe(false);
    expect(first.value!.length).toBe(BATCH_SIZE);
    expect(first.value!.columns[0]!.data).toBeInstanceOf(Int32Array);
    const second = await gen.next();
    expect(batchRows(second.value!)[0]).toEqual([BATCH_SIZE + 1]);
    await gen.return(undefined);
  });

  it('counts exactly across batch boundaries', async () => {
    const b = generateSeries.bind([T.int8, T.int8, T.int8], [0, 3 * BATCH_SIZE, 1], evalCtx(), new Map());
    expect(b.schema).toEqual([{ name: 'generate_series', type: T.int8 }]);
    let n = 0;
    let last: Value = null;
    const lengths: number[] = [];
    for await (const batch of b.execute([0, 3 * BATCH_SIZE, 1], evalCtx())) {
      n += batch.length;
      lengths.push(batch.length);
      last = batchRows(batch).at(-1)![0]!;
    }
    expect(n).toBe(3 * BATCH_SIZE + 1);
    expect(lengths).toEqual([BATCH_SIZE, BATCH_SIZE, BATCH_SIZE, 1]);
    expect(last).toBe(3 * BATCH_SIZE);
  });

  it('int8 beyond 2^53 is exact bigint, and safe values stay numbers', async () => {
    const start = 2n ** 53n - 2n;
    const b = generateSeries.bind([T.int8, T.int8], [start, start + 4n], evalCtx(), new Map());
    const rows: Value[] = [];
    for await (const batch of b.execute([Number(start), start + 4n], evalCtx())) for (const r of batchRows(batch)) rows.push(r[0]!);
    expect(rows).toEqual([9007199254740990, 9007199254740991, 9007199254740992n, 9007199254740993n, 9007199254740994n]);
  });

  it('is registered', () => {
    expect(lookupTableFunction('generate_series')).toBe(generateSeries);
    expect(lookupTableFunction('read_csv')?.name).toBe('read_csv');
    expect(lookupTableFunction('read_json')?.name).toBe('read_json');
  });
});

/**
 * memory_limit covers every buffer that grows with the data. Each statement runs at memory_limit 64MB in
 * a child process whose V8 heap is 192MB: a buffer the limit misses kills the child (the test then
 * finds no answer line) instead of passing slowly. Each answer is either 53200 naming the operator and
 * the limit, or the correct result of a spilled operator; the same Database answers `select 1` after.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

interface Answer {
  rows?: unknown[][];
  code?: string;
  message?: string;
  detail?: string;
  crash?: string;
  after: number;
  reserved: number;
}

async function runLimited(statements: string[], limit = '64MB', heapMB = 192, mode = 'sequential'): Promise<Answer[]> {
  const child = spawn(process.execPath, [`--max-old-space-size=${heapMB}`, join(ROOT, 'test/memory/run-queries.mjs'), limit, JSON.stringify(statements), mode], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  const answers = out.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Answer);
  // Every reservation is given back to the process budget when its statement ends.
  for (const a of answers) expect(a.reserved).toBe(0);
  if (code !== 0 || answers.length !== statements.length) {
    throw new Error(`child exited with ${code} after ${answers.length} of ${statements.length} statements:\n${err.slice(-2000)}`);
  }
  return answers;
}

function expectOutOfMemory(a: Answer, operator: string): void {
  expect(a.crash).toBeUndefined();
  expect(a.code).toBe('53200');
  expect(a.message).toBe('out of memory');
  expect(a.detail).toContain(` in ${operator}:`);
  expect(a.detail).toContain('memory_limit is 64MB');
  expect(a.after).toBe(1);
}

const G4M = 'generate_series(1, 4000000) i';

describe('memory_limit 64MB, heap 192MB', () => {
  it('refuses growing DISTINCT, aggregate and set-operation buffers with 53200', async () => {
    const cases: [string, string][] = [
      [`select count(distinct repeat(i::text, 2000)) from ${G4M}`, 'HashAggregate'],
      [`select distinct repeat(i::text, 200) from ${G4M}`, 'Distinct'],
      [`select length(string_agg(repeat(i::text, 100), ',')) from ${G4M}`, 'HashAggregate'],
      [`select array_length(array_agg(repeat(i::text, 100)), 1) from ${G4M}`, 'HashAggregate'],
      [`select length(json_agg(repeat(i::text, 100))::text) from ${G4M}`, 'HashAggregate'],
      [`select string_agg(x, ',' order by x) from (select repeat(i::text, 100) x from ${G4M}) s`, 'HashAggregate'],
      [`select count(*) from (select repeat(i::text, 100) from ${G4M} union select 'x') s`, 'HashSetOp Union'],
      [`select count(*) from (select repeat(i::text, 100) from ${G4M} intersect select 'x') s`, 'HashSetOp Intersect'],
      [`select count(*) from (select repeat(i::text, 100) from ${G4M} except select 'x') s`, 'HashSetOp Except'],
      // The build side's text is read above the join (a count alone would not keep it: see HashJoin.rightRead).
      [`select count(*), max(length(b.r)) from generate_series(1, 2000000) a join (select i, repeat(i::text, 100) r from generate_series(1, 2000000) i) b on a = b.i`, 'HashJoin'],
      // Per-partition Top-N (strict: no filter above to fall back on) keeps k rows for each of 1M partitions.
      [`set quire.derive_topn = on; select count(*) from (select i, row_number() over (partition by i order by i) rn from (select i, repeat(i::text, 100) s from generate_series(1, 1000000) i) t) x where rn <= 2`, 'TopNRanking'],
      [`select count(*) from generate_series(1, 3) a join (select i, repeat(i::text, 100) r from generate_series(1, 1000000) i) b on a < b.i`, 'NestedLoopJoin'],
    ];
    const answers = await runLimited(cases.map(([sql]) => sql));
    answers.forEach((a, i) => expectOutOfMemory(a, cases[i]![1]));
  }, 120_000);

  it('refuses growing recursive CTE working tables and UNION sets, and whole results, with 53200', async () => {
    const cases: [string, string][] = [
      // UNION keeps every row produced so far.
      [`with recursive t(n, s) as (select 1, repeat('x', 10000) union select n + 1, repeat('x', 10000) || n from t where n < 100000) select count(*) from t`, 'RecursiveUnion'],
      // UNION ALL: the working table itself grows (1000 rows per iteration, each longer than the last).
      [`with recursive t(n, s) as (select i, repeat('x', 1000) from generate_series(1, 1000) i union all select n + 1, repeat('x', 1000 + n * 10) from t where n < 100000) select count(*) from t`, 'RecursiveUnion'],
      // db.query materializes the whole result.
      [`select repeat(i::text, 1000) from generate_series(1, 1000000) i`, 'query result'],
      // EXECUTE materializes it too.
      [`prepare big as select repeat(i::text, 1000) from generate_series(1, 1000000) i; execute big`, 'query result'],
      // A cursor keeps the rows it has read (SCROLL may go back).
      [`declare c scroll cursor with hold for select repeat(i::text, 1000) from generate_series(1, 1000000) i; move last in c`, 'cursor'],
    ];
    const answers = await runLimited(cases.map(([sql]) => sql));
    answers.forEach((a, i) => expectOutOfMemory(a, cases[i]![1]));
  }, 120_000);

  it('spills sorts, GROUP BY and windows and answers correctly', async () => {
    const answers = await runLimited([
      `select length(k), substr(k, 1, 12) from (select repeat(i::text, 100) k from generate_series(1, 300000) i) s order by k offset 299999`,
      `select count(*) from (select repeat(i::text, 100) k, count(*) from generate_series(1, 200000) i group by 1) s`,
      `select count(*), sum(c)::int from (select i % 1000 g, count(distinct repeat(i::text, 100)) c from generate_series(1, 200000) i group by 1) s`,
      `select count(*), max(r) from (select row_number() over (partition by i % 3 order by repeat(i::text, 50)) r from generate_series(1, 200000) i) s`,
    ]);
    for (const a of answers) {
      expect(a.code, a.detail).toBeUndefined();
      expect(a.after).toBe(1);
    }
    expect(answers.map((a) => a.rows)).toEqual([[[500, '999999999999']], [[200000]], [[1000, 200000]], [[200000, 66667]]]);
  }, 120_000);

  it('Top-N with a deep OFFSET falls back to a spilling sort and keeps arrival order among ties', async () => {
    const answers = await runLimited([
      `select i from (select i, repeat(i::text, 100) s from generate_series(1, 100000) i) t order by s offset 80000 limit 3`,
      `select i from (select i, repeat((i % 25000)::text, 100) s from generate_series(1, 100000) i) t order by s offset 80000 rows fetch first 2 rows with ties`,
      `explain (format quire, analyze) select i from (select i, repeat(i::text, 100) s from generate_series(1, 100000) i) t order by s offset 80000 limit 3`,
    ]);
    // Expected: the same orderings computed here (text sorts in code point order; ties by arrival).
    const expected = (key: (i: number) => string, offset: number, limit: number, ties: boolean): number[] => {
      const rows = Array.from({ length: 100000 }, (_, k) => ({ i: k + 1, s: key(k + 1) }));
      rows.sort((a, b) => (a.s < b.s ? -1 : a.s > b.s ? 1 : a.i - b.i));
      let end = offset + limit;
      while (ties && end < rows.length && rows[end]!.s === rows[end - 1]!.s) end++;
      return rows.slice(offset, end).map((r) => r.i);
    };
    expect(answers[0]!.rows!.map((r) => r[0])).toEqual(expected((i) => String(i).repeat(100), 80000, 3, false));
    expect(answers[1]!.rows!.map((r) => r[0])).toEqual(expected((i) => String(i % 25000).repeat(100), 80000, 2, true));
    expect(answers[1]!.rows).toHaveLength(4);
    expect(String(answers[2]!.rows![1]![0])).toMatch(/TopN .*strategy=sort \(spilled\) spill runs=\d+/);
    for (const a of answers) expect(a.after).toBe(1);
  }, 120_000);

  it('stays within the limit below it: the same statements over small inputs answer', async () => {
    const answers = await runLimited([
      `select count(distinct repeat(i::text, 20)) from generate_series(1, 10000) i`,
      `select count(*) from (select distinct i % 100 from generate_series(1, 100000) i) s`,
      `select length(string_agg(i::text, ',')) from generate_series(1, 10000) i`,
      `select * from (select i from generate_series(1, 100000) i union select 1) s order by 1 offset 99998`,
      `with recursive t(n) as (select 1 union select n + 1 from t where n < 1000) select count(*) from t`,
      // The build side keeps only its key when nothing reads its text: the 53200 join above, counted only.
      `select count(*) from generate_series(1, 2000000) a join (select i, repeat(i::text, 100) r from generate_series(1, 2000000) i) b on a = b.i`,
    ]);
    expect(answers.map((a) => a.rows)).toEqual([[[10000]], [[100]], [[48893]], [[99999], [100000]], [[1000]], [[2000000]]]);
  }, 120_000);

  it('copies short pieces out of long strings, so buffered pieces do not keep their sources alive', async () => {
    // Each source is 64 kB; 8,000 buffered 20-32 character pieces that each kept theirs alive would
    // hold 512 MB, past the child's heap, while the sort reserved only the pieces' size.
    const answers = await runLimited([
      `select count(*), min(s) from (select substr(repeat(md5(i::text), 2000), 5, 20) s from generate_series(1, 8000) i order by s) x`,
      `select count(*), min(s) from (select split_part(repeat(md5(i::text) || ',', 2000), ',', 7) s from generate_series(1, 8000) i order by s) x`,
      `select count(*), min(s) from (select (regexp_match(repeat(md5(i::text), 2000), '([0-9a-f]{20})'))[1] s from generate_series(1, 8000) i order by s) x`,
      `select count(*), min(s) from (select right(left(repeat(md5(i::text), 2000), 40), 20) s from generate_series(1, 8000) i order by s) x`,
    ]);
    for (const a of answers) {
      expect(a.crash).toBeUndefined();
      expect(a.rows![0]![0]).toBe(8000);
      expect(String(a.rows![0]![1])).toMatch(/^[0-9a-f]{20,32}$/);
    }
  }, 120_000);

  it('shares one process budget between concurrent statements: each under its limit, together past it, some get 53200 and the process lives', async () => {
    // Heap 256MB: the process budget is 128MB. Each statement alone stays under both budgets.
    const one = 'select count(distinct repeat(i::text, 20)) from generate_series(1, 150000) i';
    const alone = await runLimited([one], '160MB', 256);
    expect(alone[0]!.rows).toEqual([[150000]]);
    const answers = await runLimited([one, one, one, one, one, one], '160MB', 256, 'concurrent');
    const refused = answers.filter((a) => a.code === '53200');
    expect(answers.every((a) => a.crash === undefined)).toBe(true);
    expect(refused.length).toBeGreaterThan(0);
    for (const a of refused) expect(a.detail).toContain('the statements running in this process hold');
    for (const a of answers) if (a.code === undefined) expect(a.rows).toEqual([[150000]]);
    expect(answers.every((a) => a.after === 1)).toBe(true);
  }, 120_000);

  it('refuses arrays built from one long value past a share of the heap (54000) instead of dying', async () => {
    // Heap 192MB: the bound is 192MB / 32 elements; each input is a few hundred megabytes of array.
    const answers = await runLimited(
      [
        "select cardinality(string_to_array(repeat('a', 30000000), null))",
        "select cardinality(string_to_array(repeat('a,', 15000000), ','))",
        "select cardinality(regexp_split_to_array(repeat('a', 30000000), ''))",
        "select length(array_to_string(array_fill('x'::text, array[30000000]), ','))",
        "select cardinality(string_to_array(repeat('a,', 1000), ','))",
      ],
      '64MB',
      192,
    );
    for (const a of answers.slice(0, 4)) {
      expect(a.crash).toBeUndefined();
      expect(a.code).toBe('54000');
      expect(a.after).toBe(1);
    }
    expect(answers[4]!.rows).toEqual([[1001]]);
  }, 120_000);
});

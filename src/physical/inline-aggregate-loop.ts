/**
 * A generated loop that groups rows and updates every aggregate in one pass: each row's key (an int4
 * value or a text dictionary code) finds its group through a lookup table (key -> group id + 1, 0 = none),
 * then each accumulator's inline step (InlineStep) runs on that group. The vectorized path writes the
 * batch's group ids and then makes one pass per aggregate, reading the selection, the group ids and the
 * argument again each time; here each row is read once and no group id is stored.
 *
 * The loop creates no groups and takes no rare path: it stops at the first row whose key has no group yet
 * (or falls outside the table), or whose update is not the common case of every step (an overflow to
 * check, a group's first value, a NaN state), and returns that row's position, with nothing of that row
 * stored, so the caller can run the general path on it and go on. Rows are updated in input order,
 * every aggregate of a row before the next row, which keeps each group's sequence of updates (and so
 * floating-point sums) what the per-aggregate passes give. A group whose state stays off the common case
 * (a NaN average, an infinite sum) sends its rows to the general path each time: slower, never different.
 *
 * Tallied (few groups: TALLY_GROUPS in hash-aggregate.ts): the steps that only count rows (count(*),
 * count(x) of a batch without NULLs), and the row counts steps keep beside their state (avg's divisor,
 * InlineStep.rowCountRef) where they skip no NULL, share one int32 tally per group, counted once per row
 * and added to each of their count arrays when the loop stops, instead of a read-add-write of a double
 * per step and row. Counts are integers, so adding them later changes no result.
 *
 * NULLs: a key column with NULL rows sends them to the NULL group (`nullGroup`; -1 until the general
 * path has made it, which stops the loop there). Dictionary codes, -1 on NULL rows, need no test of the
 * flags: the table is read at code + 1 and holds the NULL group at 0 (nullSlot; KeyLookup in
 * hash-aggregate.ts). A step marked skipsNulls (an aggregate that ignores NULL
 * inputs) reads its argument's flags and neither tests nor stores on a NULL row. Both are decided when
 * the loop is generated, so a batch without NULLs runs a loop with no such test.
 */
import type { InlineStep } from '../functions/aggregate/aggregate-function.js';

/**
 * Runs rows [start, end) (positions in `sel`, or batch rows when sel is null); returns end, or the
 * position of the first row it did not update.
 */
export type InlineAggregateLoop = (
  keys: Int32Array,
  table: Int32Array,
  sel: Uint32Array | null,
  start: number,
  end: number,
  args: readonly ArrayLike<number>[],
  refs: readonly unknown[],
  /** Tallied loops: zeros, one per group there is (left zero on return); others ignore it. */
  tally: Int32Array,
  /** The key's NULL flags (read only by a loop generated with keyNulls). */
  keyNulls: Uint8Array | null,
  /** The NULL group's id, -1 when there is none yet. */
  nullGroup: number,
  /** Each argument's NULL flags (read only for the arguments a skipsNulls step reads). */
  argNulls: readonly (Uint8Array | null)[],
) => number;

type Factory = () => InlineAggregateLoop;

/**
 * Whether a step counts rows the loop's tally can count for it: count(*)-like steps (countsRows), and
 * a row count kept beside the step's state (rowCountRef) when the step skips no NULL row, so that it
 * counts every row the loop updates. A loop is worth tallying only when some step does.
 */
export function talliesRows(st: InlineStep): boolean {
  return st.countsRows === true || (st.rowCountRef !== undefined && st.skipsNulls !== true);
}

// Keyed by the generated source, which depends only on the kinds of the accumulators: every query with the
// same aggregates shares one compiled (and, once hot, optimized) function.
const compiled = new Map<string, InlineAggregateLoop>();
const MAX_COMPILED = 256;

/**
 * The loop for these steps; `argOf[s]` is the index in `args` of step s's argument column (-1: none, as
 * count(*)). Steps reading the same column share one load of it.
 */
export function inlineAggregateLoop(steps: readonly InlineStep[], argOf: readonly number[], tallied = false, keyNulls = false, nullSlot = false): InlineAggregateLoop {
  const prelude: string[] = [];
  // Arguments whose values some step reads, and those whose NULL flags one reads (count(x) reads only
  // the flags).
  const loaded = new Set<number>();
  const flagged = new Set<number>();
  for (let s = 0; s < steps.length; s++) {
    if (argOf[s]! < 0) continue;
    if (steps[s]!.argUnused !== true) loaded.add(argOf[s]!);
    if (steps[s]!.skipsNulls === true) flagged.add(argOf[s]!);
  }
  for (const a of loaded) prelude.push(`const A${a} = A[${a}];`);
  for (const a of flagged) prelude.push(`const N${a} = AN[${a}];`);
  let r = 0;
  // The count arrays the tally is added to.
  const counted: string[] = [];
  // A row count kept beside a step's state goes to the tally when the step counts every row (talliesRows).
  const talliedCount = (st: InlineStep): boolean => tallied && st.rowCountRef !== undefined && talliesRows(st);
  {
    let base = 0;
    for (const st of steps) {
      if (tallied && st.countsRows === true) counted.push(`R${base}`);
      if (talliedCount(st)) counted.push(`R${base + st.rowCountRef!}`);
      base += st.refs.length;
    }
  }
  const bodies = (row: string): string => {
    const lines: string[] = [];
    for (const a of loaded) lines.push(`const x${a} = A${a}[${row}];`);
    for (const a of flagged) lines.push(`const n${a} = N${a}[${row}] === 1;`);
    const oks: string[] = [];
    const stores: string[] = [];
    let base = 0;
    for (let s = 0; s < steps.length; s++) {
      const st = steps[s]!;
      const b = base;
      base += st.refs.length;
      if (tallied && st.countsRows === true) continue;
      const c = st.code((i) => `R${b + i}`, 'gid', argOf[s]! < 0 || st.argUnused === true ? '0' : `x${argOf[s]}`, `s${s}_`);
      lines.push(c.compute);
      // A NULL argument: whatever compute made of the row's (meaningless) value is neither tested nor kept.
      const isNull = st.skipsNulls === true && argOf[s]! >= 0 ? `n${argOf[s]}` : null;
      if (c.ok !== 'true') oks.push(isNull === null ? c.ok : `(${isNull} || ${c.ok})`);
      const store = st.rowCountRef !== undefined && !talliedCount(st) ? `${c.store} R${b + st.rowCountRef}[gid]++;` : c.store;
      stores.push(isNull === null ? store : `if (!${isNull}) { ${store} }`);
    }
    if (counted.length > 0) stores.push('C[gid]++;');
    if (oks.length > 0) lines.push(`if (!(${oks.join(' && ')})) break;`);
    lines.push(...stores);
    return lines.join('\n');
  };
  for (const st of steps) for (let i = 0; i < st.refs.length; i++, r++) prelude.push(`const R${r} = R[${r}];`);
  // Before the return: the tally added to the count arrays and zeroed.
  const flush =
    counted.length === 0
      ? ''
      : `for (let g = 0; g < C.length; g++) {
const c = C[g];
if (c !== 0) { ${counted.map((a) => `${a}[g] += c;`).join(' ')} C[g] = 0; }
}
`;
  // Keys below 0 become large under >>> 0 and fail the bound test like keys past the table's end. A
  // row the loop does not update breaks out with j at it: one exit, so the tally's sums are written once
  // in the code (a smaller function for the compiler to optimize and inline).
  // nullSlot: the table is read at key + 1, a NULL key's -1 at the NULL group's entry 0.
  const at = nullSlot ? 'key + 1' : 'key';
  const lookup = `((${at}) >>> 0 < cap ? T[${at}] : 0) - 1`;
  const gidOf = (row: string): string => (keyNulls ? `(KN[${row}] === 1 ? NG : ${lookup})` : lookup);
  const body = `return function inlineAggregate(K, T, sel, start, end, A, R, C, KN, NG, AN) {
${prelude.join('\n')}
const cap = T.length;
let j = start;
if (sel === null) {
for (; j < end; j++) {
const key = K[j];
const gid = ${gidOf('j')};
if (gid < 0) break;
${bodies('j')}
}
} else {
for (; j < end; j++) {
const i = sel[j];
const key = K[i];
const gid = ${gidOf('i')};
if (gid < 0) break;
${bodies('i')}
}
}
${flush}return j;
};`;
  let f = compiled.get(body);
  if (f === undefined) {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    f = (new Function(body) as Factory)();
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(body, f);
  }
  return f;
}

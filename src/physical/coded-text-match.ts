/**
 * A condition on one text column that carries dictionary codes, made of LIKE and its kin against
 * constant patterns (NOT LIKE, ILIKE, the POSIX ~ operators) over the column or its lower() or upper(),
 * joined by AND, OR, NOT, IS [NOT] NULL and IS [NOT] TRUE/FALSE/UNKNOWN: evaluated once per distinct
 * entry a batch meets (and once for NULL), each row reading its entry's result by code. A stored column
 * of 10,000 distinct values over a million rows is then 10,000 matches instead of a million (ILIKE
 * lower-cased every row's string), and a coded column whose strings were never built (a Parquet
 * dictionary, codedTextColumn) never builds them.
 *
 * The condition depends on the row's text alone: every operator here is immutable and its pattern a
 * constant. AND and OR stop at the first deciding argument, left to right, as the row-at-a-time code
 * does, so an invalid pattern in an argument never reached raises nothing either way; one reached fails
 * at the first entry, as at the first row.
 */
import { T, type Value } from '../common/types.js';
import { makeColumn, type Batch, type Column } from '../common/column.js';
import type { TextDictionary } from '../common/text-dictionary.js';
import type { ExecContext } from '../execution/context.js';
import type { Expr } from '../logical/expr.js';
import type { EvalContext } from '../functions/eval-context.js';

const PER_ENTRY = new Set(['~~', '!~~', '~~*', '!~~*', '~', '!~', '~*', '!~*']);

/** An entry's result not computed yet; true, false and NULL are 1, 0 and 2. */
const UNKNOWN = -1;
const NULL_RESULT = 2;
/** In the row loops: the row is NULL (its result is the condition's for NULL). */
const NULL_ROW = -2;

/** The condition for one value of the column (null: the row's value is NULL). */
type Test = (ctx: EvalContext, s: string | null) => boolean | null;

export interface CodedTextMatch {
  /** Whole-batch results as a bool column; null when the batch's column carries no codes. */
  column(batch: Batch, ctx: ExecContext): Column | null;
  /** The rows where it is true into sel (as a predicate); null when the column carries no codes. */
  select(batch: Batch, ctx: ExecContext, sel: Uint32Array): number | null;
}

/** Text functions of one argument whose result depends on it alone (the database's case rules). */
const TEXT_OF_TEXT = new Set(['lower', 'upper']);

/** The column's value as text (null: a NULL row), mapped through lower() or upper() when `e` says so. */
type TextOf = (ctx: EvalContext, s: string | null) => string | null;

function textOf(e: Expr, col: { index: number; calls: number }): TextOf | null {
  if (e.type.name !== 'text' && e.type.name !== 'varchar') return null;
  if (e.kind === 'column') {
    if (col.index >= 0 && col.index !== e.index) return null;
    col.index = e.index;
    return (_ctx, s) => s;
  }
  if (e.kind !== 'call' || !TEXT_OF_TEXT.has(e.name) || e.args.length !== 1) return null;
  const inner = textOf(e.args[0]!, col);
  if (inner === null) return null;
  const fn = (e.overload.specialize?.(e.args.map((a) => a.type)) ?? e.overload.fn) as unknown as (ctx: EvalContext, s: string) => Value;
  return (ctx, s) => {
    const v = inner(ctx, s);
    return v === null ? null : (fn(ctx, v) as string | null);
  };
}

/** The condition's test and the one column it reads, or null when `e` is not such a condition. */
function testOf(e: Expr, col: { index: number; calls: number }): Test | null {
  switch (e.kind) {
    case 'call': {
      if (!PER_ENTRY.has(e.name) || e.args.length !== 2) return null;
      const [arg, pat] = e.args as [Expr, Expr];
      if (pat.kind !== 'const' || typeof pat.value !== 'string') return null;
      const text = textOf(arg, col);
      if (text === null) return null;
      col.calls++;
      const fn = (e.overload.specialize?.(e.args.map((a) => a.type)) ?? e.overload.fn) as unknown as (ctx: EvalContext, s: string, p: string) => Value;
      const pattern = pat.value;
      return (ctx, s) => {
        const v = text(ctx, s);
        return v === null ? null : (fn(ctx, v, pattern) as boolean | null);
      };
    }
    case 'and':
    case 'or': {
      const tests: Test[] = [];
      for (const a of e.args) {
        const t = testOf(a, col);
        if (t === null) return null;
        tests.push(t);
      }
      const stop = e.kind === 'or';
      return (ctx, s) => {
        let r: boolean | null = !stop;
        for (const t of tests) {
          const v = t(ctx, s);
          if (v === stop) return stop;
          if (v === null) r = null;
        }
        return r;
      };
    }
    case 'not': {
      const t = testOf(e.arg, col);
      if (t === null) return null;
      return (ctx, s) => {
        const v = t(ctx, s);
        return v === null ? null : !v;
      };
    }
    case 'is-null': {
      // The column's text (or its lower()/upper()), or a condition over it.
      const text = textOf(e.arg, col);
      if (text !== null) return e.negated ? (ctx, s) => text(ctx, s) !== null : (ctx, s) => text(ctx, s) === null;
      const t = testOf(e.arg, col);
      if (t === null) return null;
      return e.negated ? (ctx, s) => t(ctx, s) !== null : (ctx, s) => t(ctx, s) === null;
    }
    case 'bool-test': {
      const t = testOf(e.arg, col);
      if (t === null) return null;
      const want = e.test === 'unknown' ? null : e.test === 'true';
      return e.negated ? (ctx, s) => t(ctx, s) !== want : (ctx, s) => t(ctx, s) === want;
    }
    default:
      return null;
  }
}

/** The matcher for `e` when it is such a condition, else null. */
export function codedTextMatch(e: Expr): CodedTextMatch | null {
  const col = { index: -1, calls: 0 };
  const test = testOf(e, col);
  // Without a match there is nothing to save: the generated code tests NULL flags as fast.
  if (test === null || col.calls === 0) return null;
  const index = col.index;
  // Results per entry of the last dictionary seen: batches of one column share it, and it only grows.
  let dictionary: TextDictionary | null = null;
  let results = new Int8Array(0);
  let nullResult = UNKNOWN;

  const resultsFor = (d: TextDictionary): Int8Array => {
    if (d !== dictionary) {
      dictionary = d;
      results = new Int8Array(d.size).fill(UNKNOWN);
    } else if (results.length < d.size) {
      const grown = new Int8Array(Math.max(d.size, results.length * 2)).fill(UNKNOWN);
      grown.set(results);
      results = grown;
    }
    return results;
  };
  const code3 = (v: boolean | null): number => (v === null ? NULL_RESULT : v ? 1 : 0);
  const entryResult = (ctx: ExecContext, d: TextDictionary, res: Int8Array, code: number): number => {
    const r = code3(test(ctx.eval, d.values[code]!));
    res[code] = r;
    return r;
  };
  const nullRowResult = (ctx: ExecContext): number => {
    if (nullResult === UNKNOWN) nullResult = code3(test(ctx.eval, null));
    return nullResult;
  };

  /** A row's result not at hand: a NULL row's (NULL_ROW), or its entry's computed on first sight. */
  const resolve = (ctx: ExecContext, d: TextDictionary, res: Int8Array, code: number, r: number): number => (r === NULL_ROW ? nullRowResult(ctx) : entryResult(ctx, d, res, code));
  /** The batch's codes, or null when its column carries none. */
  const codesOf = (batch: Batch): { codes: Int32Array; nulls: Uint8Array | null; d: TextDictionary } | null => {
    const c = batch.columns[index]!;
    const dc = c.dict;
    return dc == null || dc.codes.length < batch.length ? null : { codes: dc.codes, nulls: c.nulls, d: dc.dictionary };
  };

  return {
    column(batch, ctx) {
      const coded = codesOf(batch);
      if (coded === null) return null;
      const { codes, nulls: rowNulls, d } = coded;
      const res = resultsFor(d);
      const n = batch.length;
      const data = new Uint8Array(n);
      let nulls: Uint8Array | null = null;
      for (let i = 0; i < n; i++) {
        const code = codes[i]!;
        let r = code < 0 || (rowNulls !== null && rowNulls[i] === 1) ? NULL_ROW : res[code]!;
        if (r < 0) r = resolve(ctx, d, res, code, r);
        if (r === NULL_RESULT) (nulls ??= new Uint8Array(n))[i] = 1;
        else data[i] = r;
      }
      return makeColumn(T.bool, data, nulls);
    },
    select(batch, ctx, sel) {
      const coded = codesOf(batch);
      if (coded === null) return null;
      const { codes, nulls: rowNulls, d } = coded;
      const res = resultsFor(d);
      const n = batch.length;
      let k = 0;
      for (let i = 0; i < n; i++) {
        const code = codes[i]!;
        let r = code < 0 || (rowNulls !== null && rowNulls[i] === 1) ? NULL_ROW : res[code]!;
        if (r < 0) r = resolve(ctx, d, res, code, r);
        // Branch-free append, as the generated predicates do.
        sel[k] = i;
        k += +(r === 1);
      }
      return k;
    },
  };
}

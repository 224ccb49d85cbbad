/**
 * Keyset ("seek") predicates: rows strictly after (or at-or-after) a key tuple in an ORDER BY order.
 *
 *   (k1..kn) after (v1..vn)  =  OR_i ( k1 ≡ v1 AND … AND k(i-1) ≡ v(i-1) AND ki ≻ vi )
 *
 * where ≡ is IS NOT DISTINCT FROM (NULL keys are peers, as in ORDER BY) and ≻ is "sorts after" for
 * that key's direction and NULL placement:
 *   vi NULL,  NULLS FIRST:  ki IS NOT NULL         vi NULL, NULLS LAST:  (nothing sorts after)
 *   vi value, NULLS LAST:   ki > vi OR ki IS NULL   vi value, NULLS FIRST: ki > vi
 * (with < instead of > for DESC). The plain comparison is NULL on NULL input; the formula has no
 * NOT, so NULL acts as false everywhere and a filter keeps exactly the rows sorting after the tuple
 * (the NULL-key bugs in user-needs.md §10 all come from leaving out the NULL terms).
 *
 * The comparison operators use the engine's ordering (compareValues: NaN greatest, C collation), so
 * the predicate and the sort agree on every value.
 */
import { compareValues } from '../common/compare.js';
import { T, type DataType, type Value } from '../common/types.js';
import { FALSE, TRUE, type Expr, type SortKey } from '../logical/expr.js';
import { andOf } from '../logical/conjuncts.js';

export interface KeyColumn {
  /** Column position in the plan the predicate filters. */
  col: number;
  type: DataType;
  name: string;
  desc: boolean;
  nullsFirst: boolean;
}

const col = (k: KeyColumn): Expr => ({ kind: 'column', index: k.col, type: k.type, name: k.name });
const lit = (k: KeyColumn, v: Value): Expr => ({ kind: 'const', value: v, type: k.type });
const isNull = (e: Expr, negated: boolean): Expr => ({ kind: 'is-null', arg: e, negated, type: T.bool });
const or = (args: Expr[]): Expr => (args.length === 0 ? FALSE : args.length === 1 ? args[0]! : { kind: 'or', args, type: T.bool });

function equalTo(k: KeyColumn, v: Value): Expr {
  if (v === null) return isNull(col(k), false);
  return { kind: 'compare', op: '=', left: col(k), right: lit(k, v), type: T.bool };
}

/** ki ≻ vi, or null when no row can sort after vi on this key. */
function after(k: KeyColumn, v: Value): Expr | null {
  if (v === null) return k.nullsFirst ? isNull(col(k), true) : null;
  const cmp: Expr = { kind: 'compare', op: k.desc ? '<' : '>', left: col(k), right: lit(k, v), type: T.bool };
  return k.nullsFirst ? cmp : or([cmp, isNull(col(k), false)]);
}

/** Rows after `values` in the order of `keys`; `inclusive` also keeps rows equal on every key. */
export function seekPredicate(keys: readonly KeyColumn[], values: readonly Value[], inclusive: boolean): Expr {
  if (keys.length === 0) return inclusive ? TRUE : FALSE;
  const terms: Expr[] = [];
  const prefix: Expr[] = [];
  for (let i = 0; i < keys.length; i++) {
    const a = after(keys[i]!, values[i]!);
    if (a !== null) terms.push(andOf([...prefix, a]));
    prefix.push(equalTo(keys[i]!, values[i]!));
  }
  if (inclusive) terms.push(andOf(prefix));
  return or(terms);
}

/** The same order as the predicate, on JavaScript values (NULLs per key placement). */
export function compareTuples(keys: readonly KeyColumn[], a: readonly Value[], b: readonly Value[]): number {
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const x = a[i]!;
    const y = b[i]!;
    if (x === null || y === null) {
      if (x === y) continue;
      return (x === null) === k.nullsFirst ? -1 : 1;
    }
    const c = compareValues(x, y, k.type);
    if (c !== 0) return k.desc ? -c : c;
  }
  return 0;
}

export function toSortKeys(keys: readonly KeyColumn[]): SortKey[] {
  return keys.map((k) => ({ expr: col(k), desc: k.desc, nullsFirst: k.nullsFirst }));
}

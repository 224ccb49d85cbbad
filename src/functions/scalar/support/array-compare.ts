/**
 * x op ANY (a) / x op ALL (a) over text[], with PostgreSQL's three-valued results: an empty array
 * gives false (ANY) / true (ALL) even for a null x; otherwise a null x or element that could decide
 * the answer makes it null.
 */
import { compareStrings } from '../../../common/compare.js';
import type { TextArray } from '../../../common/types.js';

export type CompareOp = '=' | '<>' | '<' | '<=' | '>' | '>=';

function test(op: CompareOp, c: number): boolean {
  switch (op) {
    case '=':
      return c === 0;
    case '<>':
      return c !== 0;
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    case '>=':
      return c >= 0;
  }
}

export function quantified(op: CompareOp, all: boolean, x: string | null, a: TextArray | null): boolean | null {
  if (a === null) return null;
  if (a.length === 0) return all;
  if (x === null) return null;
  let sawNull = false;
  for (const e of a) {
    if (e === null) {
      sawNull = true;
      continue;
    }
    const r = test(op, compareStrings(x, e));
    if (all ? !r : r) return !all;
  }
  return sawNull ? null : all;
}

import type { BenchCase } from '../types.js';

/**
 * Per-row float8 ln, exp and power: Quire rounds these correctly (as glibc, hence PostgreSQL, does),
 * with a fast path that decides most calls and double-double arithmetic for the rest; this case shows
 * what that costs against the platform's Math functions.
 */
const c: BenchCase = {
  name: 'float_math',
  description: 'ln, exp and power on every row (1M calls each), summed in 10 groups',
  sql: () => 'SELECT g % 10 AS b, sum(ln(v + 1)) AS l, sum(exp(v / 1000)) AS e, sum(power(v + 1, 0.3)) AS p FROM t GROUP BY g % 10',
  check: 'unordered',
};
export default c;

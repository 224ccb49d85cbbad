import type { BenchCase } from '../types.js';

/** LIKE with a constant prefix over the 10,000-string text column (~1/26 of the rows match 'ab%' … 'a%'). */
const c: BenchCase = {
  name: 'like_prefix',
  description: "SELECT count(*), max(s) … WHERE s LIKE 'ab%'",
  sql: () => "SELECT count(*), max(s), count(*) FILTER (WHERE s LIKE '%ab') FROM t WHERE s LIKE 'ab%' OR s LIKE 'q%'",
  check: 'ordered',
};
export default c;

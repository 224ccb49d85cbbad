import type { BenchCase } from '../types.js';

/**
 * Hash join on a text key: the build side is the ~6,300 distinct strings among the 1% of rows with
 * k < 100, every t row probes it with its string (~63% match), and a count and a sum come out.
 */
const c: BenchCase = {
  name: 'join_text',
  description: 'hash join on a text key: t (probe, 1M strings) with the distinct s of 1% of t (build), count and sum',
  sql: () => 'SELECT count(*), sum(t.v) FROM t JOIN (SELECT DISTINCT s FROM t WHERE k < 100) x ON t.s = x.s',
  check: 'ordered',
};
export default c;

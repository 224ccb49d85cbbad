import type { BenchCase } from '../types.js';

/** LIKE shapes the literal fast path refuses: '_' and '%' inside the pattern, and ILIKE. */
const c: BenchCase = {
  name: 'like_wildcards',
  description: "count(*) WHERE s LIKE 'a_c%' / s LIKE '%a%e%' / s ILIKE 'AB%'",
  sql: () => "SELECT count(*) FILTER (WHERE s LIKE 'a_c%'), count(*) FILTER (WHERE s LIKE '%a%e%'), count(*) FILTER (WHERE s ILIKE 'AB%') FROM t",
  dialect: { sqlite: () => "SELECT sum(s GLOB 'a?c*'), sum(s GLOB '*a*e*'), sum(s LIKE 'AB%') FROM t" },
  notes: "SQLite's LIKE is case-insensitive: GLOB for the case-sensitive patterns, LIKE for ILIKE.",
  check: 'ordered',
};
export default c;

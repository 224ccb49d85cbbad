import type { BenchCase } from '../types.js';

/**
 * like_wildcards' patterns over text computed per row (s || '/' || k): a computed value carries no
 * dictionary codes, so each row is matched (like_wildcards matches each distinct stored string once,
 * lower(s) and upper(s) too).
 */
const c: BenchCase = {
  name: 'like_computed',
  description: "count(*) WHERE x LIKE 'a_c%' / x LIKE '%a%e%' / x ILIKE 'AB%' over x = s || '/' || k",
  sql: () =>
    "SELECT count(*) FILTER (WHERE x LIKE 'a_c%'), count(*) FILTER (WHERE x LIKE '%a%e%'), count(*) FILTER (WHERE x ILIKE 'AB%') FROM (SELECT s || '/' || k AS x FROM t) q",
  dialect: {
    sqlite: () => "SELECT sum(x GLOB 'a?c*'), sum(x GLOB '*a*e*'), sum(x LIKE 'AB%') FROM (SELECT s || '/' || k AS x FROM t) q",
  },
  notes: "SQLite's LIKE is case-insensitive: GLOB for the case-sensitive patterns, LIKE for ILIKE.",
  check: 'ordered',
};
export default c;

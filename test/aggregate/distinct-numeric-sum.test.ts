/**
 * Aggregates with DISTINCT (deduplicated as rows arrive, per group) and sum/avg over numeric (coefficients
 * summed as doubles while exact) against PostgreSQL (PGlite): the same tables in both, results compared as
 * PostgreSQL prints them. The data crosses batch boundaries and holds the values these paths must not
 * get wrong: NULLs, groups with nothing but NULLs, -0 and NaN, int8 beyond 2^53, numerics equal under a
 * different scale, numerics beyond 2^53 and NaN / ±Infinity, text equal only bytewise.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlDiff } from '../functions/sql-diff.js';

let sql: SqlDiff;

const SETUP = `
CREATE TABLE d AS
SELECT i,
       i % 7 AS g,
       CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 7919) % 1500 END AS v,
       CASE WHEN i % 13 = 0 THEN NULL ELSE CAST((i * 7919) % 3000 AS bigint) * 4000000000000 + (i % 5) END AS b,
       CASE WHEN i % 17 = 0 THEN NULL ELSE CAST((CAST(i AS bigint) * 104729) % 100000 AS numeric) / 100 END AS n,
       CASE WHEN i % 3 = 0 THEN CAST(((i * 31) % 997) AS numeric(10,1))
            WHEN i % 3 = 1 THEN CAST(((i * 31) % 997) AS numeric(10,2))
            ELSE CAST(((i * 31) % 997) AS numeric(10,0)) END AS ns,
       CASE WHEN i % 19 = 0 THEN NULL ELSE 'k' || ((i * 13) % 2500) END AS t,
       CASE WHEN i % 23 = 0 THEN NULL ELSE DATE '2000-01-01' + (i * 37) % 9000 END AS dt,
       CASE WHEN i % 29 = 0 THEN NULL ELSE CAST((i * 7) % 400 AS float8) / 8 END AS f,
       CASE WHEN i % 5 = 0 THEN 99 ELSE i % 7 END AS h
FROM generate_series(1, 30000) AS s(i);
CREATE TABLE e (g int, n numeric, f float8, t text, b bigint, x int);
INSERT INTO e VALUES
  (1, 1.0, 0.0, 'a', 9007199254740993, 1), (1, 1.00, -0.0, 'a ', 9007199254740992, 1), (1, 1, 'NaN', 'A', 9007199254740993, NULL),
  (1, 2.50, 'NaN', E'e\\u0301', -9223372036854775808, 2), (1, 2.5, NULL, E'\\u00e9', 9223372036854775807, 2), (1, NULL, 1.5, NULL, NULL, NULL),
  (2, NULL, NULL, NULL, NULL, NULL), (2, NULL, NULL, NULL, NULL, NULL),
  (3, 'NaN', 'Infinity', '', 0, 0), (3, 'NaN', '-Infinity', '', -0, 0), (3, 1.5, 'Infinity', 'b', 1, 0),
  (4, 'Infinity', 1, 'x', 1, 1), (4, '-Infinity', 2, 'y', 2, 2),
  (5, 'Infinity', 1, 'x', 1, 1), (5, 5.25, 1, 'x', 1, 1),
  (6, 9007199254740991.5, 1, 'p', 1, 1), (6, 9007199254740991.5, 2, 'q', 2, 2), (6, 0.000000000000000000000001, 3, 'r', 3, 3),
  (7, 123456789012345678901234567890.123, 1, 'z', 1, 1), (7, 0.1, 1, 'z', 1, 1), (7, -0.10, 1, 'z', 1, 1);
`;

beforeAll(async () => {
  sql = await SqlDiff.start(SETUP);
}, 60_000);
afterAll(async () => {
  await sql.close();
});

describe('DISTINCT aggregates', () => {
  it('without GROUP BY, over every storage kind', async () => {
    const qs = [
      'SELECT count(DISTINCT v), count(DISTINCT b), count(DISTINCT n), count(DISTINCT t), count(DISTINCT dt), count(DISTINCT f) FROM d',
      'SELECT count(DISTINCT g), count(DISTINCT dt) FROM d',
      'SELECT sum(DISTINCT v), avg(DISTINCT v), sum(DISTINCT b), avg(DISTINCT b), sum(DISTINCT n), avg(DISTINCT n) FROM d',
      'SELECT sum(DISTINCT f), avg(DISTINCT f), min(DISTINCT t), max(DISTINCT dt) FROM d',
      'SELECT count(DISTINCT ns), sum(DISTINCT ns) FROM d WHERE i % 3 = 0',
      'SELECT count(DISTINCT ns) FROM d',
      'SELECT count(DISTINCT v) FROM d WHERE i < 0',
      'SELECT sum(DISTINCT n), avg(DISTINCT v) FROM d WHERE i < 0',
    ];
    expect(await sql.mismatches(qs)).toEqual([]);
  });

  it('with GROUP BY, including groups of NULLs only and FILTER', async () => {
    const qs = [
      'SELECT g, count(DISTINCT dt), count(DISTINCT t), sum(DISTINCT v) FROM d GROUP BY g ORDER BY g',
      'SELECT h, count(DISTINCT v), avg(DISTINCT n), count(*) FROM d GROUP BY h ORDER BY h',
      'SELECT g, count(DISTINCT f) FILTER (WHERE i % 2 = 0), sum(DISTINCT b) FILTER (WHERE v > 700) FROM d GROUP BY g ORDER BY g',
      'SELECT v % 10 AS k, count(DISTINCT t), count(DISTINCT dt) FROM d GROUP BY 1 ORDER BY 1 NULLS FIRST',
      'SELECT g, v, count(DISTINCT t) FROM d WHERE i < 3000 GROUP BY g, v ORDER BY g, v NULLS LAST',
    ];
    expect(await sql.mismatches(qs)).toEqual([]);
  });

  it('equality as PostgreSQL has it: -0 = 0, NaN = NaN, 1.0 = 1.00, text bytewise, int8 beyond 2^53', async () => {
    const qs = [
      'SELECT g, count(DISTINCT n), count(DISTINCT f), count(DISTINCT t), count(DISTINCT b), count(DISTINCT x) FROM e GROUP BY g ORDER BY g',
      'SELECT count(DISTINCT n), count(DISTINCT f), count(DISTINCT t), count(DISTINCT b) FROM e',
      'SELECT g, sum(DISTINCT b), avg(DISTINCT b), sum(DISTINCT x) FROM e GROUP BY g ORDER BY g',
      'SELECT g, array_agg(DISTINCT t), array_agg(DISTINCT x), string_agg(DISTINCT t, \'|\') FROM e GROUP BY g ORDER BY g',
      'SELECT g, array_agg(DISTINCT f) FROM e GROUP BY g ORDER BY g',
      'SELECT g, sum(DISTINCT f) FROM e GROUP BY g ORDER BY g',
      "SELECT g, count(DISTINCT n), sum(DISTINCT n) FROM e WHERE g IN (3, 4, 5, 6, 7) GROUP BY g ORDER BY g",
    ];
    expect(await sql.mismatches(qs)).toEqual([]);
  });
});

describe('integer aggregates over a filter selection', () => {
  it('sum, avg, min, max of int4 and int8 (some beyond 2^53) read through the selection', async () => {
    const qs = [
      'SELECT g, sum(v), avg(v), min(v), max(v), sum(b), avg(b), min(b), max(b) FROM d WHERE i % 3 <> 0 GROUP BY g ORDER BY g',
      'SELECT h, sum(b), max(b), min(v) FROM d WHERE v > 700 GROUP BY h ORDER BY h',
      'SELECT g, sum(b), min(b) FROM d WHERE b < 4000000000000 GROUP BY g ORDER BY g',
      'SELECT g, sum(b), max(dt), min(f) FROM d WHERE i < 0 GROUP BY g ORDER BY g',
    ];
    expect(await sql.mismatches(qs)).toEqual([]);
  });
});

describe('sum and avg over numeric', () => {
  it('matches PostgreSQL to the last digit and the printed scale', async () => {
    const qs = [
      'SELECT g, sum(n), avg(n), count(n) FROM d GROUP BY g ORDER BY g',
      'SELECT sum(n), avg(n) FROM d',
      'SELECT g, sum(ns), avg(ns) FROM d GROUP BY g ORDER BY g',
      'SELECT h, sum(n * 1000000000), avg(n * 1000000000) FROM d GROUP BY h ORDER BY h',
      'SELECT sum(CAST(b AS numeric) * 1000), avg(CAST(b AS numeric)) FROM d',
      'SELECT g, sum(n), avg(n) FROM d WHERE i < 0 GROUP BY g',
      'SELECT sum(n), avg(n) FROM d WHERE i < 0',
      'SELECT g, sum(n), avg(n) FROM e GROUP BY g ORDER BY g',
      'SELECT sum(n), avg(n) FROM e WHERE g IN (6, 7)',
    ];
    expect(await sql.mismatches(qs)).toEqual([]);
  });

  it('a running sum that crosses 2^53 in its coefficient', async () => {
    const qs = [
      'SELECT sum(CAST(i AS numeric) * 1000000000000.01), avg(CAST(i AS numeric) * 1000000000000.01) FROM generate_series(1, 20000) AS s(i)',
      'SELECT i % 3, sum(CAST(i AS numeric) * 300000000000.5), avg(CAST(-i AS numeric) * 300000000000.5) FROM generate_series(1, 20000) AS s(i) GROUP BY 1 ORDER BY 1',
      "SELECT sum(x), avg(x) FROM (VALUES (9007199254740991), (1), (0.5), (-9007199254740993), (CAST('Infinity' AS numeric))) AS v(x)",
      "SELECT sum(x), avg(x) FROM (VALUES (CAST(4503599627370496 AS numeric)), (4503599627370496), (0.001), (1e30), (-1e30)) AS v(x)",
    ];
    expect(await sql.mismatches(qs)).toEqual([]);
  });
});

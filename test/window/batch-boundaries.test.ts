/**
 * Differential tests (PGlite) for partitions that cross batch edges: the Window finds where a batch's
 * last partition starts and whether the next batch continues it by typed scans of the key columns
 * (key-changes.ts), so multi-key partitions (text with NULLs and non-BMP characters, float8 with NaN,
 * -0 beside 0 and NULL) over more rows than a batch must split exactly where PostgreSQL splits them.
 * lag / lead with constant offsets (block copies) are checked at partition edges, with offsets past
 * the partition, negative and zero offsets, NULL values and defaults.
 */
import { describe, it } from 'vitest';
import { agreementSuite } from '../harness/agree.js';
import { rng } from '../common/pg-helper.js';

const ROWS = 12_000;

function setupSql(seed: number): string[] {
  const r = rng(seed);
  const vals: string[] = [];
  for (let i = 1; i <= ROWS; i++) {
    // Few distinct (a, b) pairs: partitions of hundreds to thousands of rows, several per batch edge.
    const a = ["'x'", "'日本'", "'a😀'", 'NULL'][Math.floor(r() * 4)]!;
    const b = ["'NaN'", "'-0'", '0', 'NULL', '1.5'][Math.floor(r() * 5)]!;
    const k = r() < 0.1 ? 'NULL' : String(Math.floor(r() * 50));
    const v = r() < 0.1 ? 'NULL' : String(Math.floor(r() * 1000 - 500) / 4);
    vals.push(`(${i}, ${a}, ${b}, ${k}, ${v})`);
  }
  return ['CREATE TABLE w (id int, a text, b float8, k int, v float8)', `INSERT INTO w VALUES ${vals.join(', ')}`];
}

describe('partitions across batch edges vs PostgreSQL', () => {
  const { agree } = agreementSuite(() => setupSql(1515));

  it('lag / lead with constant offsets, defaults and NULLs at partition edges', async () => {
    const W = ['PARTITION BY a, b ORDER BY id', 'PARTITION BY b, a ORDER BY id DESC', 'PARTITION BY a ORDER BY id'];
    const qs: string[] = [];
    for (const w of W) {
      qs.push(`SELECT id, lag(k) OVER (${w}), lead(k, 2, -1) OVER (${w}), lag(v, 3) OVER (${w}), lead(b, 1) OVER (${w}) FROM w ORDER BY id`);
      qs.push(`SELECT id, lag(k, 0) OVER (${w}), lag(k, -2, 7) OVER (${w}), lead(v, 5000, 0.5) OVER (${w}), lag(a, 9000) OVER (${w}) FROM w ORDER BY id`);
    }
    await agree(qs);
  }, 300_000);

  it('positional functions and GROUPS frames with EXCLUDE over multi-key partitions', async () => {
    await agree([
      'SELECT id, row_number() OVER w, ntile(7) OVER w, rank() OVER w, percent_rank() OVER w, cume_dist() OVER w FROM w WINDOW w AS (PARTITION BY a, b ORDER BY k, id) ORDER BY id',
      'SELECT id, sum(v) OVER (PARTITION BY b, a ORDER BY k GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW), count(*) OVER (PARTITION BY b, a ORDER BY k GROUPS BETWEEN 2 PRECEDING AND CURRENT ROW EXCLUDE GROUP) FROM w ORDER BY id',
      'SELECT a, b, count(*), sum(rn), sum(nt) FROM (SELECT a, b, row_number() OVER (PARTITION BY a, b ORDER BY id) AS rn, ntile(3) OVER (PARTITION BY a, b ORDER BY id) AS nt FROM w) x GROUP BY a, b ORDER BY a, b',
    ]);
  }, 300_000);
});

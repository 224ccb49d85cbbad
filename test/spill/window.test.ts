/**
 * Window partitions larger than memory_limit spill and are evaluated in chunks (window-chunked.ts):
 * seeded random window queries (several functions and frames, a few huge partitions among many small
 * ones, NULLs and ties) under a tiny memory_limit print exactly what they print without a limit and what
 * PostgreSQL (PGlite) prints; one partition far larger than the limit completes with the right values;
 * function/frame combinations that cannot be chunked fail with 53200 naming the call; temp files are gone
 * after success, error, cancellation and an abandoned stream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/api/database.js';
import { liveSpillDirectories } from '../../src/execution/spill/spill-manager.js';
import { pgliteAndQuire, outcomeText, type SqlConnection } from '../harness/connection.js';
import { rng, tempDir } from './helpers.js';

const ROWS = 24_000;
const LIMIT = '256kB';
const tmp = tempDir();
afterAll(() => tmp.remove());

const WORDS = ['a', 'b', 'é', 'zz', '\u{1F600}', 'abc', ''];

/** INSERTs of the seeded table w(id, p, o, x, f, s): p puts 45% / 20% of the rows in partitions 0 / 1. */
function setupSql(seed: number): string[] {
  const r = rng(seed);
  const out = ['CREATE TABLE w (id int, p int, o int, x int, f double precision, s text)'];
  let values: string[] = [];
  for (let i = 1; i <= ROWS; i++) {
    const u = r();
    const p = u < 0.45 ? '0' : u < 0.65 ? '1' : u < 0.7 ? 'NULL' : String(2 + Math.floor(r() * 300));
    const o = r() < 0.08 ? 'NULL' : String(Math.floor(r() * 40));
    const x = r() < 0.1 ? 'NULL' : String(Math.floor(r() * 2000) - 1000);
    // Quarters: float sums are exact, so they print the same whatever order an engine adds in.
    const f = r() < 0.1 ? 'NULL' : String(Math.floor(r() * 400) / 4);
    const s = r() < 0.1 ? 'NULL' : `'${WORDS[Math.floor(r() * WORDS.length)]!}${'y'.repeat(Math.floor(r() * 12))}'`;
    values.push(`(${i}, ${p}, ${o}, ${x}, ${f}, ${s})`);
    if (values.length === 2000) {
      out.push(`INSERT INTO w VALUES ${values.join(', ')}`);
      values = [];
    }
  }
  if (values.length > 0) out.push(`INSERT INTO w VALUES ${values.join(', ')}`);
  return out;
}

/**
 * Window expressions. Order-sensitive ones order by (o, id), which is total, so every engine computes the
 * same values; rank-like functions and RANGE/GROUPS frames order by o alone, so peers (ties) matter.
 */
const W = 'PARTITION BY p ORDER BY o, id';
const EXPRS = [
  `row_number() OVER (${W})`,
  'rank() OVER (PARTITION BY p ORDER BY o)',
  'dense_rank() OVER (PARTITION BY p ORDER BY o DESC NULLS LAST)',
  'percent_rank() OVER (PARTITION BY p ORDER BY o)',
  'cume_dist() OVER (PARTITION BY p ORDER BY o NULLS FIRST)',
  `ntile(7) OVER (${W})`,
  `sum(x) OVER (${W})`,
  'sum(x) OVER (PARTITION BY p ORDER BY o)',
  'count(x) OVER (PARTITION BY p ORDER BY o GROUPS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)',
  `sum(f) OVER (${W} ROWS UNBOUNDED PRECEDING)`,
  `avg(x) OVER (${W} ROWS BETWEEN 3 PRECEDING AND 2 FOLLOWING)`,
  `min(s) OVER (${W} ROWS BETWEEN 5 PRECEDING AND CURRENT ROW)`,
  `max(x) OVER (${W} ROWS BETWEEN 2 FOLLOWING AND 6 FOLLOWING)`,
  'count(*) OVER (PARTITION BY p)',
  'sum(x) OVER (PARTITION BY p)',
  'max(s) OVER (PARTITION BY p)',
  `lag(x) OVER (${W})`,
  `lead(s, 2, 'none') OVER (${W})`,
  `lag(x, 3, -1) OVER (${W})`,
  `first_value(s) OVER (${W})`,
  `last_value(x) OVER (${W} ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)`,
  `last_value(x) OVER (${W})`,
  'max(id) OVER (PARTITION BY p ORDER BY o)',
  `first_value(x) OVER (${W} ROWS BETWEEN UNBOUNDED PRECEDING AND 3 PRECEDING)`,
  `avg(f) OVER (${W} ROWS BETWEEN UNBOUNDED PRECEDING AND 4 FOLLOWING)`,
  `sum(x) OVER (${W} ROWS BETWEEN 3 FOLLOWING AND UNBOUNDED FOLLOWING)`,
  `string_agg(s, ',') OVER (${W} ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)`,
  `lead(x, -2) OVER (${W})`,
  `last_value(s) OVER (${W} ROWS BETWEEN 2 FOLLOWING AND UNBOUNDED FOLLOWING)`,
  `first_value(x) OVER (${W} ROWS BETWEEN 3 PRECEDING AND UNBOUNDED FOLLOWING)`,
  'count(*) OVER (PARTITION BY p ORDER BY o RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)',
  `sum(x) FILTER (WHERE x > 0) OVER (${W} ROWS BETWEEN UNBOUNDED PRECEDING AND 2 PRECEDING)`,
  `nth_value(x, 2) OVER (${W} ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING)`,
  `sum(x) OVER (${W} ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW)`,
  `sum(x) OVER (${W} ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)`,
  `count(s) OVER (${W} ROWS BETWEEN 4 PRECEDING AND UNBOUNDED FOLLOWING)`,
  'row_number() OVER (ORDER BY o, id)',
  'sum(x) OVER (ORDER BY o)',
];

describe('spilled window partitions: seeded queries vs unlimited and PostgreSQL', () => {
  let pg: SqlConnection;
  let q: SqlConnection;
  beforeAll(async () => {
    ({ pg, q } = await pgliteAndQuire(setupSql(77)));
    await q.query(`SET temp_directory = '${tmp.dir}'`);
  }, 120_000);
  afterAll(async () => {
    await pg.close?.();
    await q.close?.();
  });

  it('every expression, and random combinations, agree', async () => {
    const r = rng(2024);
    const queries: string[] = EXPRS.map((e) => `SELECT id, ${e} FROM w ORDER BY id`);
    for (let k = 0; k < 10; k++) {
      const picked = [0, 1, 2, 3].map(() => EXPRS[Math.floor(r() * EXPRS.length)]!);
      queries.push(`SELECT id, p, ${picked.join(', ')} FROM w ORDER BY id`);
    }
    const failures: string[] = [];
    for (const sql of queries) {
      const want = await outcomeText(pg, sql);
      const free = await outcomeText(q, sql);
      await q.query(`SET memory_limit = '${LIMIT}'`);
      const got = await outcomeText(q, sql);
      await q.query('RESET memory_limit');
      expect(want.startsWith('ERROR'), `${sql}: ${want.slice(0, 200)}`).toBe(false);
      if (got !== want || free !== want) {
        const diff = [want, free, got].map((t) => t.split('\n'));
        const i = diff[0]!.findIndex((l, j) => l !== diff[1]![j] || l !== diff[2]![j]);
        failures.push(`${sql}\n  line ${i}: postgres ${diff[0]![i]} / unlimited ${diff[1]![i]} / ${LIMIT} ${diff[2]![i]}`);
      }
      expect(tmp.files()).toEqual([]);
    }
    expect(failures, failures.join('\n')).toEqual([]);
  }, 600_000);

  it('EXPLAIN ANALYZE reports the window spill; without pressure nothing is reported', async () => {
    const sql = `EXPLAIN (FORMAT QUIRE, ANALYZE) SELECT id, row_number() OVER (${W}), sum(x) OVER (PARTITION BY p) FROM w`;
    await q.query(`SET memory_limit = '${LIMIT}'`);
    const lines = (await q.query(sql)).rows.map((r) => r[0]!);
    await q.query('RESET memory_limit');
    const win = lines.find((l) => l.includes('Window'))!;
    expect(win).toMatch(/spilled partitions=[1-9]\d*/);
    expect(win).toMatch(/spill files=[1-9]\d*/);
    expect(win).toMatch(/spilled bytes=[1-9]\d*/);
    const plain = (await q.query(sql)).rows.map((r) => r[0]!).join('\n');
    expect(plain).not.toMatch(/spilled partitions/);
  });
});

describe('one partition much larger than memory_limit', () => {
  let db: Database;
  const N = 300_000;
  beforeAll(async () => {
    db = await Database.create({ settings: { temp_directory: tmp.dir } });
  });

  it('completes with the right values (about 40x the limit)', async () => {
    await db.query(`SET memory_limit = '${LIMIT}'`);
    const sql = `SELECT i, row_number() OVER w, sum(i) OVER (ORDER BY i ROWS BETWEEN 5 PRECEDING AND CURRENT ROW),
                        count(*) OVER (), lag(i) OVER w, rank() OVER (ORDER BY i / 7), sum(i) OVER w
                 FROM generate_series(1, ${N}) i WINDOW w AS (ORDER BY i)`;
    const s = await db.stream(sql);
    let n = 0;
    let bad = '';
    for await (const row of s.rows()) {
      n++;
      const i = Number(row[0]);
      const lo = Math.max(1, i - 5);
      const want = [i, i, ((lo + i) * (i - lo + 1)) / 2, N, i === 1 ? null : i - 1, Math.max(1, 7 * Math.floor(i / 7)), (i * (i + 1)) / 2];
      const got = row.map((v) => (v === null ? null : Number(v)));
      if (bad === '' && JSON.stringify(got) !== JSON.stringify(want)) bad = `row ${n}: ${JSON.stringify(got)} != ${JSON.stringify(want)}`;
    }
    expect(bad).toBe('');
    expect(n).toBe(N);
    const plan = (await db.query(`EXPLAIN (FORMAT QUIRE, ANALYZE) ${sql}`)).rows.map((r) => String(r[0])).join('\n');
    expect(plan).toMatch(/Window .*spilled partitions=1 spill files=\d+ spilled bytes=\d+/);
    await db.query('RESET memory_limit');
    expect(tmp.files()).toEqual([]);
    expect(liveSpillDirectories()).toEqual([]);
  }, 120_000);

  it('a frame that cannot be chunked fails with 53200 naming the call; files are removed', async () => {
    await db.query(`SET memory_limit = '${LIMIT}'`);
    try {
      const err = await db
        .query(`SELECT max(i) OVER (ORDER BY i ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM generate_series(1, ${N}) i`)
        .then(() => null, (e: unknown) => e as { code: string; detail?: string });
      expect(err).toMatchObject({ code: '53200' });
      expect(err!.detail).toMatch(/max\(\w+\) ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING cannot be evaluated in chunks/);
      expect(err!.detail).toMatch(/memory_limit is 256kB/);
    } finally {
      await db.query('RESET memory_limit');
    }
    expect(tmp.files()).toEqual([]);
  }, 60_000);

  it('53100 when the window spill exceeds max_temp_directory_size; files are removed', async () => {
    await db.query(`SET memory_limit = '${LIMIT}'`);
    await db.query(`SET max_temp_directory_size = '1MB'`);
    try {
      // The input is already in order (no sort below), so the temp space goes to the window alone.
      await expect(
        db.query(`SELECT sum(i) OVER (ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM (SELECT i, repeat('x', 50) AS pad FROM generate_series(1, ${N}) i) t`),
      ).rejects.toMatchObject({ code: '53100' });
    } finally {
      await db.query('RESET max_temp_directory_size');
      await db.query('RESET memory_limit');
    }
    expect(tmp.files()).toEqual([]);
    expect(liveSpillDirectories()).toEqual([]);
  }, 60_000);

  const windowFileExists = (): boolean => tmp.files().some((f) => /window-\d+\.run$/.test(f));

  it('cancellation mid-window-spill leaves no temp files', async () => {
    await db.query(`SET memory_limit = '${LIMIT}'`);
    try {
      const p = db.query(`SELECT i, sum(i) OVER (ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), count(*) OVER () FROM generate_series(1, ${N * 3}) i`);
      let spilling = false;
      const poll = setInterval(() => {
        if (windowFileExists()) {
          spilling = true;
          clearInterval(poll);
          db.cancel();
        }
      }, 2);
      try {
        await expect(p).rejects.toMatchObject({ code: '57014' });
      } finally {
        clearInterval(poll);
      }
      expect(spilling).toBe(true);
    } finally {
      await db.query('RESET memory_limit');
    }
    expect(tmp.files()).toEqual([]);
    expect(liveSpillDirectories()).toEqual([]);
  }, 60_000);

  it('a stream abandoned while the window reads its spilled partition back leaves no temp files', async () => {
    await db.query(`SET memory_limit = '${LIMIT}'`);
    try {
      const s = await db.stream(`SELECT i, row_number() OVER (), lead(i) OVER () FROM generate_series(1, ${N}) i`);
      let n = 0;
      let sawFile = false;
      for await (const row of s.rows()) {
        void row;
        if (++n === 10_000) {
          sawFile = windowFileExists();
          break;
        }
      }
      expect(sawFile).toBe(true);
    } finally {
      await db.query('RESET memory_limit');
    }
    expect(tmp.files()).toEqual([]);
    expect(liveSpillDirectories()).toEqual([]);
  }, 60_000);
});

/**
 * Memory-bounded execution through SQL: ORDER BY, window functions and GROUP BY under a tiny
 * memory_limit return what they return without a limit (seeded data), EXPLAIN ANALYZE reports the
 * spill, temp space and memory settings fail with 53100 / 22023, and no spill file survives a
 * statement (success, error or cancellation).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/api/database.js';
import type { Value } from '../../src/common/types.js';
import { liveSpillDirectories } from '../../src/execution/spill/spill-manager.js';
import { rng, rowKey, tempDir } from './helpers.js';

const ROWS = 30_000;
let db: Database;
const tmp = tempDir();

function rows(seed: number): Record<string, unknown>[] {
  const r = rng(seed);
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < ROWS; i++) {
    out.push({
      id: i,
      g: r() < 0.05 ? null : Math.floor(r() * 5000),
      p: Math.floor(r() * 40),
      x: r() < 0.1 ? null : Math.round(r() * 1e6) / 100,
      s: r() < 0.1 ? null : ['a', 'b', 'é', 'zz', '\u{1F600}', ''][Math.floor(r() * 6)]! + 'y'.repeat(Math.floor(r() * (r() < 0.05 ? 2000 : 20))),
      b: r() < 0.5,
    });
  }
  return out;
}

beforeAll(async () => {
  db = await Database.create();
  db.registerRows('t', rows(42), { id: 'integer', g: 'integer', p: 'integer', x: 'double precision', s: 'text', b: 'boolean' });
  await db.query(`SET temp_directory = '${tmp.dir}'`);
});
afterAll(() => tmp.remove());

async function under(limit: string, sql: string): Promise<Value[][]> {
  await db.query(`SET memory_limit = '${limit}'`);
  try {
    return (await db.query(sql)).rows;
  } finally {
    await db.query('RESET memory_limit');
  }
}

async function same(sql: string, ordered: boolean): Promise<void> {
  const expected = (await db.query(sql)).rows;
  const got = await under('1MB', sql);
  const a = got.map(rowKey);
  const e = expected.map(rowKey);
  if (!ordered) {
    a.sort();
    e.sort();
  }
  expect(a.length).toBe(e.length);
  expect(a).toEqual(e);
  expect(tmp.files()).toEqual([]);
}

describe('spilling through SQL', () => {
  const orders = [
    'g, id',
    'g DESC NULLS LAST, id',
    'x NULLS FIRST, id DESC',
    's, id',
    's DESC NULLS FIRST, x, id',
    'b, p DESC, s NULLS FIRST, id',
    'length(s) DESC NULLS LAST, id',
  ];
  for (const o of orders) {
    it(`ORDER BY ${o} under memory_limit 1MB equals the in-memory result`, async () => {
      await same(`SELECT * FROM t ORDER BY ${o}`, true);
    });
  }

  it('window functions over spilled sorted input', async () => {
    await same(
      `SELECT id, p, row_number() OVER w, rank() OVER w, sum(x) OVER w, lag(s) OVER w,
              count(*) OVER (PARTITION BY p) FROM t WINDOW w AS (PARTITION BY p ORDER BY g NULLS FIRST, id) ORDER BY id`,
      true,
    );
    await same(`SELECT id, sum(x) OVER (ORDER BY s, id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t ORDER BY id`, true);
  });

  it('GROUP BY on a high-cardinality key', async () => {
    await same(`SELECT g, count(*), sum(x), min(s), max(id), count(DISTINCT p), string_agg(s, ',' ORDER BY id) FROM t GROUP BY g`, false);
    await same(`SELECT g, p, count(*), avg(x) FROM t GROUP BY g, p`, false);
    await same(`SELECT count(*), sum(x) FROM t`, false);
  });

  it('EXPLAIN ANALYZE reports the spill', async () => {
    await db.query(`SET memory_limit = '1MB'`);
    try {
      const lines = (await db.query('EXPLAIN (FORMAT QUIRE, ANALYZE) SELECT * FROM t ORDER BY s, id')).rows.map((r) => String(r[0]));
      const sort = lines.find((l) => l.includes('Sort'))!;
      expect(sort).toMatch(/sort method=external merge/);
      expect(sort).toMatch(/spilled bytes=\d+/);
      expect(sort).toMatch(/spill runs=\d+/);
      expect(sort).toMatch(/spill files=\d+/);
      const agg = (await db.query('EXPLAIN (FORMAT QUIRE, ANALYZE) SELECT g, s, count(*) FROM t GROUP BY g, s')).rows.map((r) => String(r[0]));
      expect(agg.join('\n')).toMatch(/HashAggregate .*spilled rows=\d+ partitions=\d+ passes=\d+ depth=\d+ spill bytes=\d+/);
      // Few groups: the table stays small however many rows come in.
      const few = (await db.query('EXPLAIN (FORMAT QUIRE, ANALYZE) SELECT p, count(*), sum(x) FROM t GROUP BY p')).rows.map((r) => String(r[0]));
      expect(few.join('\n')).toMatch(/HashAggregate .*spilled=none/);
    } finally {
      await db.query('RESET memory_limit');
    }
    // Without pressure the plan output is the plain Sort's.
    const lines = (await db.query('EXPLAIN (FORMAT QUIRE, ANALYZE) SELECT * FROM t ORDER BY s, id')).rows.map((r) => String(r[0]));
    expect(lines.join('\n')).not.toMatch(/external merge/);
  });

  it('settings: SHOW, invalid sizes (22023), temp space exhausted (53100)', async () => {
    expect((await db.query('SHOW memory_limit')).rows[0]![0]).toMatch(/^\d+MB$/);
    await expect(db.query(`SET memory_limit = 'lots'`)).rejects.toMatchObject({ code: '22023' });
    await expect(db.query(`SET max_temp_directory_size = '12 parsecs'`)).rejects.toMatchObject({ code: '22023' });
    await db.query(`SET max_temp_directory_size = '100kB'`);
    try {
      await expect(under('1MB', 'SELECT * FROM t ORDER BY s')).rejects.toMatchObject({ code: '53100' });
    } finally {
      await db.query('RESET max_temp_directory_size');
    }
    expect(tmp.files()).toEqual([]);
  });

  it('the library option: Database.create({ settings: { memory_limit } })', async () => {
    const d2 = await Database.create({ settings: { memory_limit: '1MB', temp_directory: tmp.dir } });
    d2.registerRows('t', rows(7), { id: 'integer', g: 'integer', p: 'integer', x: 'double precision', s: 'text', b: 'boolean' });
    const lines = (await d2.query('EXPLAIN (FORMAT QUIRE, ANALYZE) SELECT * FROM t ORDER BY x, id')).rows.map((r) => String(r[0]));
    expect(lines.join('\n')).toMatch(/external merge/);
    expect(tmp.files()).toEqual([]);
    await expect(Database.create({ settings: { memory_limit: 'x' } })).rejects.toMatchObject({ code: '22023' });
  });

  it('cancellation mid-spill leaves no temp files', async () => {
    await db.query(`SET memory_limit = '1MB'`);
    try {
      const p = db.query('SELECT * FROM t a CROSS JOIN (VALUES (1), (2), (3), (4)) v(n) ORDER BY a.s, a.id, v.n');
      // Cancel as soon as the sort has created its spill directory, i.e. in the middle of spilling.
      let spilling = false;
      const poll = setInterval(() => {
        if (liveSpillDirectories().some((d) => d.startsWith(tmp.dir))) {
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
  });
});

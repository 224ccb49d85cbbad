/**
 * Keyset pagination (src/cursor): paging every fixture query at every page size 1..n+1 gives the
 * unpaged result; the last page has no cursor and no page is empty; writes between pages never
 * duplicate or skip a row that did not change; bad cursors are refused with typed errors.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import type { Value } from '../../src/common/types.js';
import { CursorCodec } from '../../src/cursor/cursor-codec.js';
import { PagingError } from '../../src/cursor/errors.js';
import { Pager } from '../../src/cursor/pager.js';
import { multiset, pageAll, pageShapeProblem, rowKey as key } from '../harness/paging.js';

let db: Database;

beforeAll(async () => {
  db = await Database.create();
  // t: no primary key, duplicate sort keys, NULLs, and rows that are equal in every column.
  await db.query(`CREATE TABLE t (id int, a int, b text, c float8)`);
  const rows: string[] = [];
  const bs = ["'x'", "'y'", 'NULL', "'z'", "'y'"];
  const cs = ['1.5', "'NaN'", '-0.0', "'Infinity'", 'NULL', '0', "'-Infinity'"];
  for (let i = 0; i < 23; i++) rows.push(`(${i % 5 === 4 ? 'NULL' : i}, ${i % 4 === 3 ? 'NULL' : i % 3}, ${bs[i % 5]}, ${cs[i % 7]})`);
  rows.push('(100, 1, \'dup\', 2.5)', '(100, 1, \'dup\', 2.5)', '(100, 1, \'dup\', 2.5)');
  await db.query(`INSERT INTO t VALUES ${rows.join(', ')}`);
  // u: a primary key (unique mode).
  await db.query(`CREATE TABLE u (k int PRIMARY KEY, v text, w int)`);
  await db.query(`INSERT INTO u SELECT g, CASE WHEN g % 4 = 0 THEN NULL ELSE 'v' || (g % 3) END, g % 5 FROM generate_series(0, 18) g`);
});

interface Fixture {
  sql: string;
  params?: unknown[];
  /** Output positions of the ORDER BY keys: paged rows must follow the same key sequence. */
  orderCols?: number[];
  mode?: 'keyset' | 'offset';
}

const FIXTURES: Fixture[] = [
  { sql: 'SELECT * FROM t' },
  { sql: 'SELECT * FROM t ORDER BY a', orderCols: [1] },
  { sql: 'SELECT * FROM t ORDER BY a DESC NULLS LAST, b NULLS FIRST', orderCols: [1, 2] },
  { sql: 'SELECT a, b FROM t ORDER BY b DESC', orderCols: [1] },
  { sql: 'SELECT b FROM t ORDER BY a', orderCols: [] },
  { sql: 'SELECT c, id FROM t ORDER BY c DESC', orderCols: [0] },
  { sql: 'SELECT a, count(*) AS n, sum(c) FILTER (WHERE c < 100) FROM t GROUP BY a ORDER BY n DESC', orderCols: [1] },
  { sql: 'SELECT b, max(id) FROM t GROUP BY b' },
  { sql: 'SELECT DISTINCT a, b FROM t ORDER BY a NULLS FIRST', orderCols: [0] },
  { sql: 'SELECT DISTINCT ON (a) a, id FROM t ORDER BY a, id DESC', orderCols: [0, 1] },
  { sql: 'SELECT t.id, u.k, u.v FROM t JOIN u ON t.a = u.w ORDER BY u.v, t.id', orderCols: [2, 0] },
  { sql: 'SELECT t.id, u.k FROM t LEFT JOIN u ON t.id = u.k ORDER BY u.k DESC', orderCols: [1] },
  { sql: 'SELECT id, a, rank() OVER (ORDER BY a) AS r, sum(id) OVER (PARTITION BY b) FROM t ORDER BY r', orderCols: [2] },
  // The LIMIT cuts through ties of a: pages keep exactly the tied rows the unpaged query keeps.
  { sql: 'SELECT * FROM t ORDER BY a LIMIT 7 OFFSET 3', orderCols: [1] },
  { sql: 'SELECT * FROM u ORDER BY v NULLS FIRST, k LIMIT 11 OFFSET 2', orderCols: [1, 0] },
  { sql: 'SELECT * FROM u LIMIT 0' },
  { sql: 'SELECT * FROM u OFFSET 30' },
  { sql: 'SELECT * FROM u WHERE w > $1 ORDER BY v DESC', params: [1], orderCols: [1] },
  { sql: 'SELECT * FROM u ORDER BY k LIMIT $1', params: [6], orderCols: [0] },
  { sql: 'SELECT a FROM t UNION ALL SELECT w FROM u ORDER BY 1', orderCols: [0] },
  { sql: 'SELECT a FROM t UNION SELECT w FROM u' },
  { sql: 'VALUES (1, \'a\'), (1, \'a\'), (2, NULL), (NULL, \'b\')' },
  { sql: 'SELECT * FROM (SELECT a, b, id FROM t WHERE id IS NOT NULL ORDER BY id LIMIT 9) s ORDER BY b', orderCols: [1] },
  { sql: 'WITH g AS (SELECT a, count(*) AS n FROM t GROUP BY a) SELECT * FROM g JOIN u ON u.k = g.n ORDER BY u.v', orderCols: [3] },
  { sql: 'SELECT count(*) FROM t' },
  { sql: 'SELECT * FROM u ORDER BY w FETCH FIRST 4 ROWS WITH TIES', orderCols: [2], mode: 'offset' },
  { sql: 'SELECT k, now() = now() AS same FROM u ORDER BY k', orderCols: [0] },
  // LIMIT / OFFSET reading the outer row, in a scalar subquery and in LATERAL.
  { sql: "SELECT k, (SELECT string_agg(id::text, ',') FROM (SELECT id FROM t WHERE id IS NOT NULL ORDER BY id LIMIT u.w OFFSET u.k % 3) s) AS s FROM u ORDER BY s NULLS FIRST, k", orderCols: [1, 0] },
  { sql: 'SELECT u.k, x.id FROM u, LATERAL (SELECT id FROM t WHERE id IS NOT NULL ORDER BY id DESC LIMIT u.w) x ORDER BY x.id, u.k', orderCols: [1, 0] },
];

describe('paged result equals the unpaged result', () => {
  for (const f of FIXTURES) {
    it(f.sql, async () => {
      const pager = new Pager(db);
      const whole = (await db.query(f.sql, f.params ?? [])).rows;
      const n = whole.length;
      for (let size = 1; size <= n + 1; size++) {
        const { rows, pages } = await pageAll(pager, f.sql, size, f.params);
        const ctx = `fetch_size ${size}`;
        expect(rows.length, ctx).toBe(n);
        expect(multiset(rows), ctx).toEqual(multiset(whole));
        if (f.orderCols && f.orderCols.length > 0) {
          const pick = (r: readonly Value[]): Value[] => f.orderCols!.map((c) => r[c]!);
          expect(rows.map(pick).map(key), ctx).toEqual(whole.map(pick).map(key));
        }
        expect(pageShapeProblem(pages, n, size), ctx).toBeNull();
        for (const p of pages) expect(p.mode, ctx).toBe(f.mode ?? 'keyset');
      }
    });
  }
});

describe('writes between pages', () => {
  it('never duplicates or skips unchanged rows (primary key)', async () => {
    const d = await Database.create();
    await d.query('CREATE TABLE p (id int PRIMARY KEY, g int)');
    await d.query('INSERT INTO p SELECT i * 10, i % 3 FROM generate_series(1, 60) i');
    const sql = 'SELECT id, g FROM p ORDER BY g, id';
    const seen: number[] = [];
    let page = await d.paginate(sql, { fetchSize: 7 });
    const deleted = new Set<number>();
    let round = 0;
    for (;;) {
      seen.push(...page.rows.map((r) => r[0] as number));
      if (page.cursor === null) break;
      round++;
      // Insert rows before and after the cursor position, delete seen and unseen rows.
      await d.query(`INSERT INTO p VALUES (${round * 10 + 1}, ${round % 3}), (${round * 10 + 5}, 0)`);
      const victim = 10 * (((round * 7) % 60) + 1);
      await d.query(`DELETE FROM p WHERE id = ${victim}`);
      deleted.add(victim);
      await d.query(`UPDATE p SET g = g WHERE id = ${victim + 10}`);
      page = await d.resume(page.cursor);
    }
    expect(new Set(seen).size).toBe(seen.length);
    for (let i = 1; i <= 60; i++) if (!deleted.has(i * 10)) expect(seen).toContain(i * 10);
  });

  it('never duplicates or skips unchanged rows (no key: duplicate counting)', async () => {
    const d = await Database.create();
    await d.query('CREATE TABLE h (g int, tag text)');
    // Every (g, tag) appears three times: only counts tell the copies apart.
    await d.query("INSERT INTO h SELECT i % 4, 'r' || (i % 10) FROM generate_series(1, 30) i");
    await d.query("INSERT INTO h SELECT i % 4, 'r' || (i % 10) FROM generate_series(1, 30) i");
    const base = multiset((await d.query('SELECT g, tag FROM h')).rows);
    const sql = 'SELECT g, tag FROM h ORDER BY g';
    const seen: Value[][] = [];
    let page = await d.paginate(sql, { fetchSize: 4 });
    let round = 0;
    for (;;) {
      seen.push(...page.rows);
      if (page.cursor === null) break;
      round++;
      // New rows that sort after everything: they may appear, but nothing else may move.
      await d.query(`INSERT INTO h VALUES (9, 'new${String(round).padStart(4, '0')}')`);
      page = await d.resume(page.cursor);
    }
    const old = seen.filter((r) => r[0] !== 9);
    expect(multiset(old)).toEqual(base);
    expect(seen.filter((r) => r[0] === 9).length).toBe(round); // all after the cursor: all seen, once
  });
});

describe('cursor validation', () => {
  it('rejects tampered, foreign, expired, wrong-version and stale cursors', async () => {
    let now = Date.now();
    const codec = new CursorCodec({ keys: [{ id: 'a', secret: 'x'.repeat(32) }], now: () => now });
    const pager = new Pager(db, { codec });
    const page = await pager.first('SELECT * FROM u ORDER BY k', { fetchSize: 3, ttlMs: 60_000 });
    const c = page.cursor!;
    const kind = async (cur: string): Promise<string> => {
      try {
        await pager.next(cur);
        return 'ok';
      } catch (e) {
        expect(e).toBeInstanceOf(PagingError);
        expect((e as PagingError).httpStatus).toBe(400);
        return (e as PagingError).kind;
      }
    };
    expect(await kind(c)).toBe('ok');
    const parts = c.split('.');
    const flip = (s: string, i: number): string => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    expect(await kind([parts[0], parts[1], flip(parts[2]!, 5), parts[3]].join('.'))).toBe('CursorInvalid');
    expect(await kind([parts[0], parts[1], parts[2], flip(parts[3]!, 2)].join('.'))).toBe('CursorInvalid');
    expect(await kind(['q9', parts[1], parts[2], parts[3]].join('.'))).toBe('CursorVersion');
    expect(await kind(['q1', 'zz', parts[2], parts[3]].join('.'))).toBe('CursorInvalid');
    expect(await kind('garbage')).toBe('CursorInvalid');
    expect(await kind('')).toBe('CursorInvalid');
    expect(await kind('q1...')).toBe('CursorInvalid');
    const other = new Pager(db, { codec: new CursorCodec({ keys: [{ id: 'a', secret: 'y'.repeat(32) }] }) });
    await expect(other.next(c)).rejects.toMatchObject({ kind: 'CursorInvalid' });
    now += 61_000;
    expect(await kind(c)).toBe('CursorExpired');
    expect(() => pager.close(c)).not.toThrow(); // closing an expired cursor succeeds
    now -= 61_000;
    // Forged payload re-signed with the wrong key is still rejected; a correctly signed stale one too.
    const d = await Database.create();
    await d.query('CREATE TABLE s (k int PRIMARY KEY)');
    await d.query('INSERT INTO s SELECT generate_series(1, 10)');
    const sp = new Pager(d, { codec });
    const sc = (await sp.first('SELECT * FROM s', { fetchSize: 2 })).cursor!;
    await d.query('DROP TABLE s');
    await d.query('CREATE TABLE s (k text PRIMARY KEY)');
    await expect(sp.next(sc)).rejects.toMatchObject({ kind: 'CursorStale' });
  });

  it('validates fetch_size and refuses volatile queries', async () => {
    const pager = new Pager(db, { maxFetchSize: 100 });
    for (const bad of [0, -1, 1.5, NaN, 101]) {
      await expect(pager.first('SELECT * FROM u', { fetchSize: bad })).rejects.toMatchObject({ kind: 'InvalidArgument' });
    }
    await expect(pager.first('SELECT random() FROM u', { fetchSize: 2 })).rejects.toMatchObject({ kind: 'PaginationUnsupported' });
    await expect(pager.first('INSERT INTO u VALUES (99)', { fetchSize: 2 })).rejects.toMatchObject({ kind: 'PaginationUnsupported' });
    const strict = new Pager(db, { fallback: 'error' });
    await expect(strict.first('SELECT * FROM u ORDER BY w FETCH FIRST 2 ROWS WITH TIES', { fetchSize: 2 })).rejects.toMatchObject({ kind: 'PaginationUnsupported' });
  });

  it('cursor stays small and can change page size', async () => {
    const pager = new Pager(db);
    const p1 = await pager.first('SELECT * FROM u ORDER BY k', { fetchSize: 2 });
    expect(p1.cursor!.length).toBeLessThan(400);
    const p2 = await pager.next(p1.cursor!, { fetchSize: 5 });
    expect(p2.rows.map((r) => r[0])).toEqual([2, 3, 4, 5, 6]);
  });

  it('deep pages seek instead of skipping (plan is a Top-N over a filter)', async () => {
    const pager = new Pager(db);
    const op = await pager.explain('SELECT * FROM u ORDER BY v', { fetchSize: 3 });
    const names: string[] = [];
    const walk = (o: { name: string; children(): readonly unknown[] }): void => {
      names.push(o.name);
      for (const c of o.children()) walk(c as typeof o);
    };
    walk(op);
    expect(names.join(' ')).toMatch(/TopN/);
  });
});

describe('DBeaver-style re-execution with LIMIT/OFFSET', () => {
  it('stays a Top-N of limit + offset rows, directly or around a subquery', async () => {
    for (const sql of ['SELECT * FROM t ORDER BY a LIMIT 5 OFFSET 10', 'SELECT * FROM (SELECT * FROM t ORDER BY a) q LIMIT 5 OFFSET 10']) {
      const plan = (await db.query(`EXPLAIN (FORMAT QUIRE) ${sql}`)).rows.map((r) => String(r[0])).join('\n');
      expect(plan, sql).toMatch(/TopN/);
      expect(plan, sql).not.toMatch(/^\s*(->\s*)?Sort\b/m);
    }
  });
});

describe('seeded fuzz over a larger table (several batches, the Top-N bound in play)', () => {
  it('pages equal the unpaged result for random orders and sizes', async () => {
    const d = await Database.create();
    let seed = 7;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    await d.query('CREATE TABLE f (a int, b float8, c text, e bigint)');
    const vals: string[] = [];
    for (let i = 0; i < 9000; i++) {
      const a = rnd(10) === 0 ? 'NULL' : String(rnd(50) - 25);
      const b = [String(rnd(1000) / 8), "'NaN'", 'NULL', "'-Infinity'", '-0.0'][rnd(20) < 16 ? 0 : rnd(5)];
      const c = rnd(8) === 0 ? 'NULL' : `'s${rnd(30)}'`;
      vals.push(`(${a}, ${b}, ${c}, ${rnd(3) === 0 ? 'NULL' : rnd(1e6)})`);
    }
    await d.query(`INSERT INTO f VALUES ${vals.join(', ')}`);
    const orders = ['a', 'a DESC', 'b', 'b DESC NULLS LAST', 'c, a', 'a NULLS FIRST, b DESC', 'e DESC, c', 'b, e'];
    const pager = new Pager(d);
    for (const o of orders) {
      const sql = `SELECT a, b, c, e FROM f ORDER BY ${o}`;
      const whole = (await d.query(sql)).rows;
      const cols = o.split(',').map((x) => 'abce'.indexOf(x.trim()[0]!));
      for (const size of [60 + rnd(40), 997, 4096]) {
        const { rows, pages } = await pageAll(pager, sql, size);
        expect(multiset(rows), `${o} / ${size}`).toEqual(multiset(whole));
        const pick = (r: readonly Value[]): string => key(cols.map((c) => r[c]!));
        expect(rows.map(pick), `${o} / ${size}`).toEqual(whole.map(pick));
        expect(pages.length).toBe(Math.ceil(whole.length / size));
      }
    }
  }, 240_000);
});

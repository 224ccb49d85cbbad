/**
 * Per-partition Top-N screened by the partition key's stored range (zone map): when every key value a
 * stored batch can hold already has a boundary, TopNRanking rejects rows by their order key alone,
 * against the largest of those boundaries, without reading the partition-key column.
 *
 * The data is written by several statements so that batches have different key ranges: a partition that
 * first appears inside an earlier range (its boundary is missing, so the batch must not be screened),
 * keys beyond the direct-address table, negative keys, NULL keys, NaN / ±Infinity / -0 order keys, ties
 * under rank and dense_rank, and an UPDATE that replaces batches. Every query must give the same rows as
 * with the rule disabled and as PGlite, and the screen must actually run where it can.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asSqlError, newPglite, quireConnection, type SqlConnection } from '../harness/connection.js';
import { Database, formatValue } from '../../src/index.js';
import { rng } from '../window/window-gen.js';

function inserts(): string[] {
  const r = rng(777);
  const out: string[] = [];
  let id = 0;
  const stmt = (rows: number, g: () => string): void => {
    const vals: string[] = [];
    for (let i = 0; i < rows; i++) {
      id++;
      const special = ["'NaN'", "'Infinity'", "'-Infinity'", "'-0'", '0'];
      const f = r.chance(0.03) ? r.pick(special) : String((r.int(20000) - 10000) / 16);
      const kn = r.chance(0.1) ? 'NULL' : String(r.int(50));
      vals.push(`(${id}, ${g()}, ${r.int(10)}, ${f}, ${r.int(40)}, ${kn})`);
    }
    out.push(`INSERT INTO z VALUES ${vals.join(', ')}`);
  };
  stmt(9000, () => String(r.int(20))); // 0..19
  stmt(9000, () => String([0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19][r.int(19)]!)); // no 7
  stmt(5000, () => (r.chance(0.02) ? '7' : String(r.int(20)))); // 7 appears inside the covered range
  stmt(9000, () => String(r.int(31))); // a wider range
  stmt(3000, () => String(-3 + r.int(3))); // negative keys: outside the direct table
  stmt(3000, () => (r.chance(0.01) ? 'NULL' : String(r.int(20)))); // NULL keys: the plain path is off
  stmt(3000, () => String(2_000_000 + r.int(3))); // beyond the direct table
  return out;
}

async function text(c: SqlConnection, sql: string): Promise<string> {
  try {
    const res = await c.query(sql);
    return res.rows.map((row) => row.map((v) => (v === null ? 'NULL' : v)).join('|')).join('\n');
  } catch (e) {
    return `ERROR ${asSqlError(e).code ?? '?'} ${asSqlError(e).message}`;
  }
}

const PARTS = ['g', 'h'];
const ORDERS = ['f', 'f DESC', 'k', 'k DESC', 'kn', 'id DESC'];
const FNS = ['row_number', 'rank', 'dense_rank'];
const KS = [1, 2, 5];

describe('per-partition Top-N screened by the stored key range', () => {
  let pg: SqlConnection;
  let q: SqlConnection;
  beforeAll(async () => {
    pg = await newPglite();
    q = quireConnection(await Database.create(), formatValue);
    const setup = ['CREATE TABLE z (id int, g int, h int, f float8, k int, kn int)', ...inserts()];
    for (const s of setup) {
      await pg.query(s);
      await q.query(s);
    }
  }, 120_000);
  afterAll(async () => {
    await pg.close?.();
  });

  async function check(failures: string[]): Promise<void> {
    let n = 0;
    for (const part of PARTS) {
      for (const order of ORDERS) {
        for (const fn of FNS) {
          const k = KS[n++ % KS.length]!;
          const key = order.split(' ')[0]!;
          // row_number over tied rows keeps arbitrary ones: compare the columns PostgreSQL determines.
          const cols = fn === 'row_number' && key !== 'id' ? `${part} AS part, ${key} + 0 AS key, rn` : `id, ${part} AS part, ${key}, rn`;
          const sql = `SELECT ${cols} FROM (SELECT *, ${fn}() OVER (PARTITION BY ${part} ORDER BY ${order}) AS rn FROM z) x WHERE rn <= ${k} ORDER BY 1, 2, 3${cols.startsWith('id') ? ', 4' : ''}`;
          await q.query("SET quire.disabled_rules = 'derive-topn-from-window'");
          const off = await text(q, sql);
          await q.query('RESET quire.disabled_rules');
          await q.query("SET quire.derive_topn = 'on'");
          const on = await text(q, sql);
          await q.query('RESET quire.derive_topn');
          const want = await text(pg, sql);
          if (on !== off) failures.push(`[rule on vs off] ${sql}\n  off: ${off.slice(0, 300)}\n  on:  ${on.slice(0, 300)}`);
          if (want !== off) failures.push(`[postgres] ${sql}\n  pg:    ${want.slice(0, 300)}\n  quire: ${off.slice(0, 300)}`);
          if (on.startsWith('ERROR') || on.length === 0) failures.push(`no rows: ${sql}: ${on.slice(0, 200)}`);
        }
      }
    }
  }

  async function rangeBatches(sql: string): Promise<number> {
    await q.query("SET quire.derive_topn = 'on'");
    const plan = (await q.query(`EXPLAIN ANALYZE ${sql}`)).rows.map((r) => r[0]).join('\n');
    await q.query('RESET quire.derive_topn');
    expect(plan).toContain('TopNRanking');
    const m = /key-range batches=(\d+)/.exec(plan);
    return m === null ? 0 : Number(m[1]);
  }

  it('agrees with the rule disabled and with PostgreSQL', async () => {
    const failures: string[] = [];
    await check(failures);
    expect(failures.slice(0, 6), failures.slice(0, 6).join('\n\n')).toEqual([]);
  }, 600_000);

  it('screens batches by key range where every key in range has a boundary, and only there', async () => {
    // h is 0..9 in every batch: after the first batch every batch of the plain statements qualifies.
    const byH = await rangeBatches('SELECT h, f FROM (SELECT *, row_number() OVER (PARTITION BY h ORDER BY f) AS rn FROM z) x WHERE rn <= 2');
    expect(byH).toBeGreaterThan(5);
    // kn has NULLs in every batch: the plain path (and with it the screen) never runs.
    expect(await rangeBatches('SELECT h, kn FROM (SELECT *, row_number() OVER (PARTITION BY h ORDER BY kn) AS rn FROM z) x WHERE rn <= 2')).toBe(0);
    // A computed partition key has no stored range.
    expect(await rangeBatches('SELECT h, f FROM (SELECT *, row_number() OVER (PARTITION BY h + 0 ORDER BY f) AS rn FROM z) x WHERE rn <= 2')).toBe(0);
  }, 60_000);

  it('still agrees after an UPDATE replaces batches with new key ranges', async () => {
    for (const c of [pg, q]) {
      await c.query('UPDATE z SET g = g + 5, f = -f WHERE id % 7 = 0');
      await c.query('DELETE FROM z WHERE id % 11 = 0');
    }
    const failures: string[] = [];
    await check(failures);
    expect(failures.slice(0, 6), failures.slice(0, 6).join('\n\n')).toEqual([]);
  }, 600_000);
});

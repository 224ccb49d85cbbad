/**
 * Quire's own switches (quire.derive_topn, quire.parquet_text_filters, quire.spill_compression) take
 * PostgreSQL's Boolean spellings and their own words, are stored as on / off (or the word), and refuse
 * anything else with 22023: `false` switches off, and a typo fails instead of silently leaving the
 * default on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, QuireError } from '../../src/index.js';

let db: Database;
let dir: string;

beforeAll(async () => {
  db = await Database.create();
  dir = mkdtempSync(join(tmpdir(), 'quire-switches-'));
  await db.query(`COPY (SELECT i AS id, 'user-' || i AS u FROM generate_series(1, 2000) i) TO '${join(dir, 'u.parquet')}' (FORMAT parquet)`);
  await db.query('CREATE TABLE a (id int, g int); INSERT INTO a SELECT i, i % 10 FROM generate_series(1, 1000) i');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const show = async (name: string): Promise<unknown> => (await db.query(`SHOW ${name}`)).rows[0]![0];
const plan = async (sql: string): Promise<string> => (await db.query(`EXPLAIN ${sql}`)).rows.map((r) => String(r[0])).join('\n');

describe("Quire's switch settings", () => {
  it('store PostgreSQL Boolean spellings as on / off, keep their own words, refuse the rest', async () => {
    const cases: [string, string, string][] = [
      ['quire.parquet_text_filters', 'false', 'off'],
      ['quire.parquet_text_filters', "'No'", 'off'],
      ['quire.parquet_text_filters', '1', 'on'],
      ['quire.parquet_text_filters', 'true', 'on'],
      ['quire.derive_topn', 'off', 'off'],
      ['quire.derive_topn', "'AUTO'", 'auto'],
      ['quire.derive_topn', 'yes', 'on'],
      ['quire.spill_compression', 'zlib', 'zlib'],
      ['quire.spill_compression', '0', 'off'],
    ];
    for (const [name, value, shown] of cases) {
      await db.query(`SET ${name} = ${value}`);
      expect(await show(name), `${name} = ${value}`).toBe(shown);
    }
    for (const [name, value] of [['quire.parquet_text_filters', "'banana'"], ['quire.derive_topn', "'sometimes'"], ['quire.spill_compression', "'lz4'"]] as const) {
      const err = await db.query(`SET ${name} = ${value}`).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, `${name} = ${value}`).toBeInstanceOf(QuireError);
      expect((err as QuireError).code).toBe('22023');
      expect((err as QuireError).message).toContain(`invalid value for parameter "${name}"`);
    }
    for (const name of ['quire.parquet_text_filters', 'quire.derive_topn', 'quire.spill_compression']) await db.query(`RESET ${name}`);
    expect(await show('quire.parquet_text_filters')).toBe('on');
    expect(await show('quire.derive_topn')).toBe('auto');
  });

  it('`false` switches a pushdown and a rule off', async () => {
    const parquet = `SELECT count(*) FROM read_parquet('${join(dir, 'u.parquet')}') WHERE u LIKE '%9'`;
    expect(await plan(parquet)).toContain('decoded first');
    await db.query('SET quire.parquet_text_filters = false');
    expect(await plan(parquet)).not.toContain('decoded first');
    await db.query('RESET quire.parquet_text_filters');
    const ranked = 'SELECT * FROM (SELECT id, row_number() OVER (PARTITION BY g ORDER BY id) rn FROM a) x WHERE rn <= 2';
    await db.query('SET quire.derive_topn = true');
    expect(await plan(ranked)).toMatch(/TopNRanking/);
    await db.query('SET quire.derive_topn = false');
    expect(await plan(ranked)).not.toMatch(/TopNRanking/);
    await db.query('RESET quire.derive_topn');
  });
});

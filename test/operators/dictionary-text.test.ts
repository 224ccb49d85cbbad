/**
 * Dictionary-encoded text end to end against PostgreSQL (PGlite): a stored text column loaded in bulk
 * carries codes in a shared dictionary, and ORDER BY (ranks instead of strings), GROUP BY, DISTINCT,
 * joins (codes as hash key words), window PARTITION BY / ORDER BY and per-partition Top-N must return
 * what PostgreSQL returns, with NULLs, ties, empty, multibyte and astral strings, DESC and NULLS
 * FIRST/LAST; again after UPDATE, DELETE and INSERT of new strings, and under a memory limit that
 * spills the sort.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { TextDictionary, encodeText } from '../../src/common/text-dictionary.js';
import { compareStrings } from '../../src/common/compare.js';
import { newPglite, quireConnection, type SqlConnection } from '../harness/connection.js';
import { rng } from './helpers.js';
import { tempDir } from '../spill/helpers.js';

let pg: SqlConnection;
let quire: SqlConnection;
let db: Database;

// U+E000 and the astral characters sit on both sides of the UTF-16 surrogate range: code point order
// differs from code unit order there.
const TEXTS = ['', 'a', 'A', 'ab', 'ab  ', 'abc', 'b', 'é', 'ß', '日本', '😀', 'a😀', '\uE000', 'x y', "o'k", 'zz'];
const ROWS = 20000;

function lit(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** Bulk rows (several full batches) whose s picks from TEXTS by a hash of i; every 9th s is NULL. */
function loadSql(name: string, from: number, to: number, texts: readonly string[]): string {
  const arr = `ARRAY[${texts.map(lit).join(', ')}]::text[]`;
  return (
    `INSERT INTO ${name} SELECT i, CASE WHEN i % 9 = 0 THEN NULL ELSE (${arr})[1 + (i * 7919) % ${texts.length}] END, ` +
    `i % 7, (i * 31) % 101 FROM generate_series(${from}, ${to}) i`
  );
}

async function both(sql: string): Promise<{ ours: string[]; theirs: string[] }> {
  const show = (rows: (string | null)[][]): string[] => rows.map((row) => row.map((v) => (v === null ? 'NULL' : v)).join('|'));
  const [a, b] = await Promise.all([quire.query(sql), pg.query(sql)]);
  return { ours: show(a.rows), theirs: show(b.rows) };
}

async function sameBag(sql: string): Promise<void> {
  const { ours, theirs } = await both(sql);
  expect(ours.length, sql).toBeGreaterThan(0);
  expect(ours.slice().sort(), sql).toEqual(theirs.slice().sort());
}

async function sameList(sql: string): Promise<void> {
  const { ours, theirs } = await both(sql);
  expect(ours.length, sql).toBeGreaterThan(0);
  expect(ours, sql).toEqual(theirs);
}

async function exec(sql: string): Promise<void> {
  await Promise.all([quire.query(sql), pg.query(sql)]);
}

/** Whether every stored batch of column `col` of `table` from `minRows` rows up carries codes. */
function coded(table: string, col: number, minRows = 512): boolean {
  const batches = db.catalog.getMemoryTable(table).snapshot().filter((b) => b.length >= minRows);
  return batches.length > 0 && batches.every((b) => b.columns[col]!.dict != null);
}

const ORDER_BYS = ['s, id', 's DESC, id', 's NULLS FIRST, id', 's DESC NULLS LAST, id DESC', 'g, s DESC, id', 's, g, v, id'];

function readQueries(): void {
  for (const o of ORDER_BYS) {
    it(`ORDER BY ${o}`, async () => {
      await sameList(`SELECT s, id FROM t ORDER BY ${o}`);
    });
  }
  it('ORDER BY with LIMIT and OFFSET (Top-N over text)', async () => {
    await sameList('SELECT s, id FROM t ORDER BY s DESC, id LIMIT 25');
    await sameList('SELECT s, id FROM t ORDER BY s NULLS FIRST, id LIMIT 10 OFFSET 2500');
  });
  it('GROUP BY and DISTINCT', async () => {
    await sameBag('SELECT s, count(*), sum(v) FROM t GROUP BY s');
    await sameBag('SELECT s, g, count(*) FROM t GROUP BY s, g');
    await sameBag('SELECT DISTINCT s FROM t');
    await sameList('SELECT count(*) FROM (SELECT DISTINCT s, g FROM t) x');
    await sameList('SELECT s, count(*) FROM t GROUP BY s ORDER BY s DESC NULLS LAST');
  });
  it('joins on text keys, both sides coded (different dictionaries) and one side plain', async () => {
    await sameList('SELECT count(*), sum(t.v) FROM t JOIN u ON t.s = u.s');
    await sameBag('SELECT u.s, count(*) FROM t JOIN u ON t.s = u.s GROUP BY u.s');
    await sameList('SELECT count(*) FROM t JOIN (SELECT DISTINCT s FROM t WHERE v < 10) x ON t.s = x.s');
    await sameBag("SELECT x.s, count(t.id) FROM (VALUES ('ab'), ('😀'), ('missing'), ('')) x(s) LEFT JOIN t ON t.s = x.s GROUP BY x.s");
  });
  it('window PARTITION BY and ORDER BY text', async () => {
    await sameBag('SELECT id, row_number() OVER (PARTITION BY s ORDER BY id) FROM t');
    await sameBag('SELECT id, rank() OVER (PARTITION BY g ORDER BY s), dense_rank() OVER (PARTITION BY g ORDER BY s DESC NULLS LAST) FROM t');
    await sameBag('SELECT id, sum(v) OVER (PARTITION BY s ORDER BY g GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW) FROM t');
    await sameBag('SELECT id, count(*) OVER (PARTITION BY g ORDER BY s RANGE UNBOUNDED PRECEDING) FROM t');
  });
  it('CASE … THEN NULL ELSE s and NULLIF(s, …) keep the codes: ORDER BY, GROUP BY, DISTINCT, joins', async () => {
    const c2 = "CASE WHEN g = 3 THEN NULL WHEN v > 90 THEN s ELSE s END";
    for (const o of ['s2 NULLS FIRST, id', 's2 DESC, id', 's2 DESC NULLS LAST, id DESC']) {
      await sameList(`SELECT s2, id FROM (SELECT ${c2} AS s2, id FROM t) x ORDER BY ${o}`);
      await sameList(`SELECT s2, id FROM (SELECT NULLIF(s, 'ab') AS s2, id FROM t) x ORDER BY ${o}`);
    }
    await sameList(`SELECT s2, id FROM (SELECT ${c2} AS s2, id FROM t) x ORDER BY s2 NULLS FIRST, id OFFSET 5000`);
    await sameBag(`SELECT ${c2}, count(*), sum(v) FROM t GROUP BY 1`);
    await sameBag("SELECT DISTINCT NULLIF(s, '') FROM t");
    await sameList(`SELECT count(*), sum(t.v) FROM t JOIN u ON (${c2.replace(/\b([gvs])\b/g, "t.$1")}) = u.s`);
    // A branch that is another column, or a computed text, gets no codes: still right.
    await sameList("SELECT x, id FROM (SELECT CASE WHEN g = 1 THEN s || '!' ELSE s END AS x, id FROM t) y ORDER BY x, id");
  });
  it('a text column sorted by its ranks comes out rebuilt from them: OFFSET mid-batch, computed text, NULLs, DESC', async () => {
    await sameList('SELECT s, id FROM t ORDER BY s DESC NULLS FIRST, id OFFSET 3333');
    await sameList('SELECT s, g, id FROM t ORDER BY g DESC, s NULLS FIRST, id OFFSET 10001');
    // Repeating computed text: ranks of a dictionary built for the sort, with NULLs and multibyte values.
    const x = "CASE WHEN id % 5 = 0 THEN NULL ELSE s || '·' END";
    await sameList(`SELECT x, id FROM (SELECT ${x} AS x, id FROM t) y ORDER BY x DESC, id OFFSET 1001`);
    await sameList(`SELECT x, id FROM (SELECT ${x} AS x, id FROM t) y ORDER BY x NULLS FIRST, id DESC`);
    // The rebuilt column feeds a window's peer groups and its output.
    await sameBag('SELECT s, g, rank() OVER (PARTITION BY g ORDER BY s DESC), count(*) OVER (PARTITION BY g ORDER BY s) FROM t');
  });
  it('per-partition Top-N on a text partition key', async () => {
    await sameBag('SELECT s, id FROM (SELECT s, id, row_number() OVER (PARTITION BY s ORDER BY v, id) AS rn FROM t) x WHERE rn <= 3');
    await sameBag('SELECT s, g, id FROM (SELECT s, g, id, rank() OVER (PARTITION BY s, g ORDER BY v DESC) AS rn FROM t) x WHERE rn <= 2');
  });
}

beforeAll(async () => {
  pg = await newPglite();
  db = await Database.create();
  quire = quireConnection(db);
  const setup = ['CREATE TABLE t (id int4, s text, g int4, v int4)', 'CREATE TABLE u (id int4, s text, g int4, v int4)'];
  for (const q of setup) await exec(q);
  await exec(loadSql('t', 1, ROWS, TEXTS));
  // u holds TEXTS in another order plus strings t lacks, in its own dictionary.
  await exec(loadSql('u', 1, 3000, [...TEXTS.slice(5), 'only-u', 'ü', ...TEXTS.slice(0, 5)]));
}, 120_000);

afterAll(async () => {
  await pg?.close?.();
  await quire?.close?.();
});

describe('codes passed through CASE', () => {
  it('a sort over CASE … THEN NULL ELSE s END uses the stored ranks, not ranks built for the sort', async () => {
    const plan = (await quire.query('EXPLAIN (FORMAT QUIRE, ANALYZE) SELECT s2, id FROM (SELECT CASE WHEN g = 3 THEN NULL ELSE s END AS s2, id FROM t) x ORDER BY s2, id')).rows
      .map((r) => String(r[0]))
      .join('\n');
    expect(plan).toMatch(/on text ranks(?! built)/);
  });
});

describe('text dictionary', () => {
  it('orders entries exactly as compareStrings (code point order), including astral against U+E000', () => {
    const r = rng(3);
    const alphabet = ['a', 'b', 'é', '\uE000', '\uFFFF', '😀', '𝄞', ' ', ''];
    const d = new TextDictionary();
    for (let i = 0; i < 400; i++) {
      let s = '';
      const len = Math.floor(r() * 4);
      for (let j = 0; j < len; j++) s += alphabet[Math.floor(r() * alphabet.length)];
      d.add(s);
    }
    const rank = d.rank();
    for (let a = 0; a < d.size; a++) {
      for (let b = 0; b < d.size; b++) {
        expect(Math.sign(rank[a]! - rank[b]!)).toBe(Math.sign(compareStrings(d.values[a]!, d.values[b]!)));
      }
    }
    // Growth keeps old codes and re-ranks over every entry.
    const before = d.values.slice();
    d.add('0');
    expect(d.values.slice(0, before.length)).toEqual(before);
    expect(d.rank().length).toBe(before.length + 1);
    expect(d.rank()[d.codeOf('0')]).toBe(before.filter((s) => compareStrings(s, '0') < 0).length);
  });

  it('encodes NULLs as -1, shares string objects, and refuses strings it lacks when not growing', () => {
    const d = new TextDictionary();
    const nulls = new Uint8Array([0, 1, 0, 0]);
    const out: (string | null)[] = new Array(4);
    const dc = encodeText(['x', null, 'y', 'x'], nulls, 4, d, true, out);
    expect(dc && Array.from(dc.codes)).toEqual([0, -1, 1, 0]);
    expect(out).toEqual(['x', null, 'y', 'x']);
    expect(encodeText(['x', 'z'], null, 2, d, false)).toBeNull();
    expect(encodeText(['y', 'x'], null, 2, d, false)?.codes).toEqual(new Int32Array([1, 0]));
  });

  it('a bulk-loaded text column carries codes; a column of mostly distinct strings stops growing its dictionary', async () => {
    expect(coded('t', 1)).toBe(true);
    expect(coded('u', 1)).toBe(true);
    const plan = (await quire.query('EXPLAIN (FORMAT QUIRE, ANALYZE) SELECT s, id FROM t ORDER BY s DESC, id')).rows.map((r) => String(r[0])).join('\n');
    expect(plan).toMatch(/sort method=[a-z -]*radix on text ranks/);
    await quire.query('CREATE TABLE ids (s text)');
    await quire.query('INSERT INTO ids SELECT md5(i::text) FROM generate_series(1, 60000) i');
    const batches = db.catalog.getMemoryTable('ids').snapshot();
    expect(batches[batches.length - 1]!.columns[0]!.dict ?? null).toBeNull();
    expect((await quire.query('SELECT count(DISTINCT s) FROM ids')).rows).toEqual([['60000']]);
  });
});

describe('over freshly loaded dictionary text', () => {
  readQueries();
});

describe('after DELETE, UPDATE to new strings and INSERT of new strings', () => {
  beforeAll(async () => {
    await exec('DELETE FROM t WHERE id % 11 = 3');
    await exec("UPDATE t SET s = 'new-β' || (id % 3) WHERE id % 13 = 5");
    await exec("UPDATE t SET s = NULL WHERE id % 17 = 1");
    // A bulk INSERT grows the dictionary (re-ranked), single rows land in the open batch without codes.
    await exec(loadSql('t', ROWS + 1, ROWS + 5000, ['aa', 'new-β0', 'Ω', '', ...TEXTS.slice(3, 8)]));
    // A single row of a known string lands in the open batch without codes; it is looked up.
    await exec("INSERT INTO t VALUES (-2, 'ab', 2, 2)");
  }, 60_000);
  it('rewritten and bulk-inserted batches share the grown dictionary, and sorts still use its ranks', async () => {
    const batches = db.catalog.getMemoryTable('t').snapshot();
    const dicts = new Set(batches.filter((b) => b.length >= 512 && b.columns[1]!.dict != null).map((b) => b.columns[1]!.dict!.dictionary));
    expect(dicts.size).toBe(1);
    // Every batch but the open one (which took the single-row INSERT) carries codes.
    expect(batches.slice(0, -1).every((b) => b.columns[1]!.dict != null)).toBe(true);
    expect(batches[batches.length - 1]!.columns[1]!.dict ?? null).toBeNull();
    const d = [...dicts][0]!;
    expect(d.codeOf('Ω')).toBeGreaterThanOrEqual(0);
    expect(d.codeOf('new-β1')).toBeGreaterThanOrEqual(0);
    const plan = (await quire.query('EXPLAIN (FORMAT QUIRE, ANALYZE) SELECT s, id FROM t ORDER BY s, id')).rows.map((r) => String(r[0])).join('\n');
    expect(plan).toMatch(/on text ranks/);
  });
  readQueries();
});

describe('after a single-row INSERT of a string the dictionary lacks', () => {
  beforeAll(async () => {
    await exec("INSERT INTO t VALUES (-1, 'solo', 1, 1)");
  });
  it('sorts fall back to ranks of their own', async () => {
    // The stored codes no longer cover every row: the sort codes the strings itself.
    const plan = (await quire.query('EXPLAIN (FORMAT QUIRE, ANALYZE) SELECT s, id FROM t ORDER BY s, id')).rows.map((r) => String(r[0])).join('\n');
    expect(plan).toMatch(/on text ranks built for the sort/);
    await sameList('SELECT s, id FROM t ORDER BY s DESC NULLS LAST, id');
  });
  it('GROUP BY, joins and windows mix coded and plain batches', async () => {
    await sameBag('SELECT s, count(*), sum(v) FROM t GROUP BY s');
    await sameList('SELECT count(*), sum(t.v) FROM t JOIN u ON t.s = u.s');
    await sameBag('SELECT s, id FROM (SELECT s, id, row_number() OVER (PARTITION BY s ORDER BY v, id) AS rn FROM t) x WHERE rn <= 3');
  });
});

describe('under a memory limit that spills', () => {
  const tmp = tempDir();
  beforeAll(async () => {
    await quire.query(`SET temp_directory = '${tmp.dir}'`);
    await quire.query(`SET memory_limit = '1MB'`);
  });
  afterAll(async () => {
    await quire.query('RESET memory_limit');
    tmp.remove();
  });
  it('ORDER BY text spills and still matches', async () => {
    const plan = (await quire.query('EXPLAIN (FORMAT QUIRE, ANALYZE) SELECT s, id FROM t ORDER BY s DESC, id')).rows.map((r) => String(r[0])).join('\n');
    expect(plan).toMatch(/spill/i);
    await sameList('SELECT s, id FROM t ORDER BY s DESC, id');
    await sameList('SELECT s, g, id FROM t ORDER BY s NULLS FIRST, g, id');
  });
  it('GROUP BY and window over text under the limit', async () => {
    await sameBag('SELECT s, g, count(*) FROM t GROUP BY s, g');
    await sameBag('SELECT id, row_number() OVER (PARTITION BY s ORDER BY id) FROM t');
  });
});

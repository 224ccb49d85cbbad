/**
 * DISTINCT over small key domains through a bitmap indexed by the key (direct-key-set.ts), GROUP BY a
 * dictionary-coded text key through an array of each code's group, and hash-join probes on a
 * dictionary-coded text key through an array of each code's chain: against PostgreSQL (PGlite), with
 * NULLs, multibyte and astral strings, int extremes, booleans, empty inputs, many duplicates, outer joins,
 * and tables whose later rows widen the bitmap or push it past its limit (the keys move to a hash table).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { T } from '../../src/common/types.js';
import { makeColumn, type Column } from '../../src/common/column.js';
import { TextDictionary } from '../../src/common/text-dictionary.js';
import { DirectKeySet, MAX_CELLS } from '../../src/physical/direct-key-set.js';
import { newPglite, quireConnection, type SqlConnection } from '../harness/connection.js';
import { rng } from './helpers.js';

let pg: SqlConnection;
let quire: SqlConnection;
let db: Database;

const TEXTS = ['', 'a', 'A', 'ab', 'ab  ', 'é', 'e\u0301', 'ß', '日本', '😀', 'a😀', '\uE000', "o'k", 'zz'];
const ROWS = 12000;

function lit(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

async function both(sql: string): Promise<{ ours: string[]; theirs: string[] }> {
  const show = (rows: (string | null)[][]): string[] => rows.map((row) => row.map((v) => (v === null ? 'NULL' : v)).join('|'));
  const [a, b] = await Promise.all([quire.query(sql), pg.query(sql)]);
  return { ours: show(a.rows), theirs: show(b.rows) };
}

async function sameBag(sql: string, allowEmpty = false): Promise<void> {
  const { ours, theirs } = await both(sql);
  if (!allowEmpty) expect(theirs.length, sql).toBeGreaterThan(0);
  expect(ours.slice().sort(), sql).toEqual(theirs.slice().sort());
}

async function exec(sql: string): Promise<void> {
  await Promise.all([quire.query(sql), pg.query(sql)]);
}

/** Whether every stored batch of column `col` of `table` from `minRows` rows up carries codes. */
function coded(table: string, col: number, minRows = 512): boolean {
  const batches = db.catalog.getMemoryTable(table).snapshot().filter((b) => b.length >= minRows);
  return batches.length > 0 && batches.every((b) => b.columns[col]!.dict != null);
}

/** Rows i in [from, to]: s from TEXTS (NULL every 11th), g = i % gmod (NULL every 13th), b, w. */
function loadSql(name: string, from: number, to: number, gmod: number, gbase = 0): string {
  const arr = `ARRAY[${TEXTS.map(lit).join(', ')}]::text[]`;
  return (
    `INSERT INTO ${name} SELECT i, CASE WHEN i % 11 = 0 THEN NULL ELSE (${arr})[1 + (i * 7919) % ${TEXTS.length}] END, ` +
    `CASE WHEN i % 13 = 0 THEN NULL ELSE ${gbase} + i % ${gmod} END, CASE WHEN i % 17 = 0 THEN NULL ELSE i % 3 = 0 END, i % 5 ` +
    `FROM generate_series(${from}, ${to}) i`
  );
}

beforeAll(async () => {
  pg = await newPglite();
  db = await Database.create();
  quire = quireConnection(db);
  for (const n of ['t', 'widen', 'over', 'ext', 'empty']) await exec(`CREATE TABLE ${n} (id int4, s text, g int4, b bool, w int2)`);
  await exec('CREATE TABLE cs (id int4, s char(4), g int4)');
  await exec(loadSql('t', 1, ROWS, 50));
  // Starts with g in 0..9, then a wider range below and above: the bitmap's layout widens twice.
  await exec(loadSql('widen', 1, 4000, 10));
  await exec(loadSql('widen', 4001, 8000, 400, -200));
  await exec(loadSql('widen', 8001, 12000, 3000, 500));
  // Fits at first, then a g range no bitmap may cover: the keys move to the hash table mid-stream.
  await exec(loadSql('over', 1, 5000, 20));
  await exec(loadSql('over', 5001, 10000, 1000, 2_000_000_000));
  await exec(loadSql('over', 10001, 15000, 1000, -2_147_483_000));
  await exec(loadSql('ext', 1, 3000, 2, 2_147_483_646));
  await exec(loadSql('ext', 3001, 6000, 2, -2_147_483_648));
  await exec(`INSERT INTO cs SELECT i, CASE i % 3 WHEN 0 THEN 'ab' WHEN 1 THEN 'ab  ' ELSE NULL END, i % 4 FROM generate_series(1, 3000) i`);
}, 120_000);

afterAll(async () => {
  await pg?.close?.();
  await quire?.close?.();
});

describe('DISTINCT over small key domains', () => {
  it('loads the text columns with dictionary codes (the paths under test)', () => {
    expect(coded('t', 1)).toBe(true);
    expect(coded('widen', 1)).toBe(true);
    expect(coded('over', 1)).toBe(true);
  });

  it('text and int keys with NULLs, multibyte and astral strings', async () => {
    await sameBag('SELECT DISTINCT s, g FROM t');
    await sameBag('SELECT count(*) FROM (SELECT DISTINCT s, g FROM t) d');
    await sameBag('SELECT DISTINCT s FROM t');
    await sameBag('SELECT DISTINCT g, s, b FROM t');
    await sameBag('SELECT DISTINCT b, w FROM t');
    await sameBag('SELECT DISTINCT s, g FROM t WHERE id % 7 = 0');
  });

  it('keys arriving outside the first layout widen it', async () => {
    await sameBag('SELECT DISTINCT s, g FROM widen');
    await sameBag('SELECT count(*), count(DISTINCT g) FROM (SELECT DISTINCT s, g FROM widen) d');
    await sameBag('SELECT DISTINCT g FROM widen');
  });

  it('keys past the bitmap limit move to the hash table without losing or repeating a row', async () => {
    await sameBag('SELECT DISTINCT s, g FROM over');
    await sameBag('SELECT count(*) FROM (SELECT DISTINCT s, g FROM over) d');
    await sameBag('SELECT DISTINCT g FROM over');
    await sameBag('SELECT DISTINCT s, g, b FROM ext');
    await sameBag('SELECT DISTINCT g FROM ext');
  });

  it('empty inputs and all-duplicate inputs', async () => {
    await sameBag('SELECT DISTINCT s, g FROM empty', true);
    await sameBag('SELECT count(*) FROM (SELECT DISTINCT s, g FROM empty) d');
    await sameBag('SELECT DISTINCT s, g FROM t WHERE id < 0', true);
    await sameBag("SELECT DISTINCT s, w FROM t WHERE s = 'zz' AND w = 1");
  });

  it('char(n) keys keep blank-insensitive equality (not the bitmap)', async () => {
    await sameBag('SELECT DISTINCT s, g FROM cs');
    await sameBag('SELECT DISTINCT s FROM cs');
  });

  it('LIMIT over DISTINCT stops early and still returns distinct rows', async () => {
    const r = await quire.query('SELECT DISTINCT s, g FROM t LIMIT 5');
    expect(r.rows.length).toBe(5);
    expect(new Set(r.rows.map((x) => JSON.stringify(x))).size).toBe(5);
  });
});

describe('GROUP BY and joins on dictionary-coded text', () => {
  it('GROUP BY a coded text key: NULL group, multibyte strings, aggregates', async () => {
    await sameBag('SELECT s, count(*), sum(g), avg(w) FROM t GROUP BY s');
    await sameBag('SELECT s, count(*) FROM over GROUP BY s');
    await sameBag('SELECT s, count(*) FROM t WHERE g > 10 GROUP BY s HAVING count(*) > 5');
    await sameBag('SELECT s, count(*) FROM empty GROUP BY s', true);
  });

  it('joins probing with coded text: inner, left, right, full, semi, anti, NULL keys never match', async () => {
    const x = "(SELECT DISTINCT s FROM t WHERE w = 1 AND s <> 'zz')";
    await sameBag(`SELECT count(*), sum(t.g) FROM t JOIN ${x} x ON t.s = x.s`);
    await sameBag(`SELECT x.s, count(*) FROM t JOIN ${x} x ON t.s = x.s GROUP BY x.s`);
    await sameBag(`SELECT count(*), count(x.s) FROM t LEFT JOIN ${x} x ON t.s = x.s`);
    await sameBag(`SELECT t.s IS NULL, x.s IS NULL, count(*) FROM t FULL JOIN ${x} x ON t.s = x.s GROUP BY 1, 2`);
    await sameBag("SELECT x.s, count(t.id) FROM (VALUES ('ab'), ('😀'), ('missing'), (''), (NULL)) x(s) LEFT JOIN t ON t.s = x.s GROUP BY x.s");
    await sameBag(`SELECT count(*) FROM t WHERE s IN ${x}`);
    await sameBag(`SELECT count(*) FROM t WHERE s NOT IN (SELECT s FROM t WHERE s IS NOT NULL AND w = 2)`);
    await sameBag(`SELECT count(*) FROM t JOIN widen ON t.s = widen.s AND t.g = widen.g`);
    await sameBag(`SELECT count(*) FROM t JOIN empty ON t.s = empty.s`);
  });
});

describe('DirectKeySet', () => {
  const dict = new TextDictionary();
  for (const s of TEXTS) dict.add(s);

  function textCol(codes: number[]): Column {
    return makeColumn(
      T.text,
      codes.map((c) => (c < 0 ? null : dict.values[c]!)),
      codes.some((c) => c < 0) ? Uint8Array.from(codes, (c) => (c < 0 ? 1 : 0)) : null,
      { codes: Int32Array.from(codes), dictionary: dict },
    );
  }
  function intCol(vals: (number | null)[]): Column {
    return makeColumn(
      T.int4,
      Int32Array.from(vals, (v) => v ?? 0),
      vals.some((v) => v === null) ? Uint8Array.from(vals, (v) => (v === null ? 1 : 0)) : null,
    );
  }

  it('matches a Set of the keys through widenings, and gives every key back', () => {
    const r = rng(11);
    const seen = new Set<string>();
    let set: DirectKeySet | null = null;
    const fresh = new Uint32Array(500);
    for (let batch = 0; batch < 40; batch++) {
      // The g range grows with the batch number (both directions), so the layout widens several times.
      const codes: number[] = [];
      const gs: (number | null)[] = [];
      for (let i = 0; i < 500; i++) {
        codes.push(r() < 0.1 ? -1 : Math.floor(r() * dict.size));
        gs.push(r() < 0.1 ? null : Math.floor((r() - 0.5) * 20 * (batch + 1)));
      }
      const cols = [textCol(codes), intCol(gs)];
      set ??= DirectKeySet.create([T.text, T.int4], cols, 500);
      expect(set).not.toBeNull();
      const w = set!.insert(cols, 500, fresh);
      const expected: number[] = [];
      for (let i = 0; i < 500; i++) {
        const k = `${codes[i]}|${gs[i]}`;
        if (!seen.has(k)) {
          seen.add(k);
          expected.push(i);
        }
      }
      expect(Array.from(fresh.subarray(0, w))).toEqual(expected);
    }
    expect(set!.size).toBe(seen.size);
    const back = new Set<string>();
    for (const b of set!.keys()) {
      for (let i = 0; i < b.length; i++) {
        const s = b.columns[0]!;
        const g = b.columns[1]!;
        const code = s.nulls?.[i] === 1 ? -1 : s.dict!.codes[i]!;
        expect(code < 0 ? null : s.data[i]).toBe(code < 0 ? null : dict.values[code]);
        back.add(`${code}|${g.nulls?.[i] === 1 ? null : g.data[i]}`);
      }
    }
    expect(back).toEqual(seen);
  });

  it('refuses a layout past MAX_CELLS, codes of another dictionary, and text without codes', () => {
    const cols = [textCol([0, 1]), intCol([0, 1])];
    const set = DirectKeySet.create([T.text, T.int4], cols, 2)!;
    const fresh = new Uint32Array(4);
    expect(set.insert(cols, 2, fresh)).toBe(2);
    expect(set.insert([textCol([0]), intCol([MAX_CELLS])], 1, fresh)).toBe(-1);
    const other = new TextDictionary();
    other.add('a');
    const foreign = makeColumn(T.text, ['a'], null, { codes: Int32Array.of(0), dictionary: other });
    expect(set.insert([foreign, intCol([0])], 1, fresh)).toBe(-1);
    expect(set.insert([makeColumn(T.text, ['a'], null), intCol([0])], 1, fresh)).toBe(-1);
    // Nothing of a refused batch was added.
    expect(set.size).toBe(2);
    expect(DirectKeySet.create([T.int4, T.int4], [intCol([-2147483648, 2147483647]), intCol([-2147483648, 2147483647])], 2)).toBeNull();
    expect(DirectKeySet.create([T.float8], [makeColumn(T.float8, Float64Array.of(1), null)], 1)).toBeNull();
  });
});

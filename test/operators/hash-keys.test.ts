/**
 * Hash keys end to end against PostgreSQL (PGlite): GROUP BY, DISTINCT and hash joins over the typed key
 * table (key-table.ts), the join probe over a Filter's selection, the branch-free probe of unique build
 * keys and the count-only join. The same seeded rows go into both engines; results are compared as
 * PostgreSQL text, as multisets (or in order where the query sorts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPglite, newQuire, type SqlConnection } from '../harness/connection.js';
import { rng } from './helpers.js';

let pg: SqlConnection;
let quire: SqlConnection;

const TEXTS = ['', 'a', 'A', 'ab', 'abc', 'é', 'ß', '日本', '😀', 'a😀', 'x y', "o'k", 'ab  '];
const FLOATS = ['0', '-0', "'NaN'", "'Infinity'", "'-Infinity'", '1.5', '-2.25', '1e300', '3'];
const INT8S = ['0', '-1', '4294967296', '-4294967296', '9007199254740993', '-9223372036854775808', '9223372036854775807', '42'];
const NUMERICS = ['1.0', '1.00', '1', '-0.5', "'NaN'", '123456789012345678901234567890.1', '0'];
const DATES = ["'2020-01-01'", "'1999-12-31'", "'infinity'", "'-infinity'", "'2024-02-29'"];

/** CREATE TABLE + INSERT of `rows` seeded rows; every column is NULL in about one row of eight. */
function tableSql(name: string, rows: number, seed: number): string {
  const r = rng(seed);
  const pick = (xs: readonly string[]): string => (r() < 0.125 ? 'NULL' : xs[Math.floor(r() * xs.length)]!);
  const vals: string[] = [];
  for (let i = 0; i < rows; i++) {
    const t = pick(TEXTS.map((s) => `'${s.replace(/'/g, "''")}'`));
    const bp = pick(['a', 'a  ', 'b', ''].map((s) => `'${s}'`));
    vals.push(
      `(${i}, ${pick(['0', '1', '2', '3', '-1', '2147483647', '-2147483648'])}, ${pick(INT8S)}, ${pick(FLOATS)}, ${pick(NUMERICS)}, ${t}, ${pick(DATES)}, ${bp}, ${pick(['true', 'false'])})`,
    );
  }
  return (
    `CREATE TABLE ${name} (id int4, i int4, b int8, f float8, n numeric, t text, d date, c char(4), o bool);` +
    `INSERT INTO ${name} VALUES ${vals.join(', ')};`
  );
}

async function both(sql: string): Promise<{ ours: string[]; theirs: string[] }> {
  const show = (rows: (string | null)[][]): string[] => rows.map((row) => row.map((v) => (v === null ? 'NULL' : v)).join('|'));
  const [a, b] = await Promise.all([quire.query(sql), pg.query(sql)]);
  return { ours: show(a.rows), theirs: show(b.rows) };
}

async function sameBag(sql: string): Promise<void> {
  const { ours, theirs } = await both(sql);
  expect(ours.slice().sort(), sql).toEqual(theirs.slice().sort());
}

async function sameList(sql: string): Promise<void> {
  const { ours, theirs } = await both(sql);
  expect(ours, sql).toEqual(theirs);
}

beforeAll(async () => {
  [pg, quire] = await Promise.all([newPglite(), newQuire()]);
  const setup = tableSql('a', 700, 7) + tableSql('b', 300, 8) + 'CREATE TABLE e (id int4, i int4, t text);';
  await pg.query(setup);
  await quire.query(setup);
}, 120_000);

afterAll(async () => {
  await pg?.close?.();
  await quire?.close?.();
});

describe('GROUP BY over several keys', () => {
  const KEYS = ['t, i', 'f, b', 'n, t', 'd, c', 'o, f, t', 'b, n, d, i', 'c, t'];
  for (const k of KEYS) {
    it(`GROUP BY ${k}`, async () => {
      await sameBag(`SELECT ${k}, count(*), count(f), sum(i), sum(b), min(f), max(f), avg(i) FROM a GROUP BY ${k}`);
    });
  }
  it('one group for NULL, NaN = NaN and -0 = 0, 1.0 = 1.00, trailing blanks of char ignored', async () => {
    await sameBag(`SELECT count(*) FROM a GROUP BY f, n, c HAVING count(*) > 0`);
    await sameBag(`SELECT f::text, count(*) FROM a WHERE f IS NULL OR f = 0 OR f = 'NaN' GROUP BY f, t IS NULL`);
  });
  it('empty input gives no groups', async () => {
    await sameBag('SELECT t, i, count(*) FROM e GROUP BY t, i');
    await sameBag('SELECT t, i, count(*) FROM a WHERE false GROUP BY t, i');
  });
  it('more than 100,000 groups', async () => {
    await sameList(
      'SELECT count(*), sum(c), min(k), max(s), max(k) FROM (SELECT x % 120000 AS k, ((x % 120000) % 97)::text AS s, count(*) AS c FROM generate_series(1, 240000) x GROUP BY 1, 2) q',
    );
    await sameList('SELECT count(*), sum(c) FROM (SELECT x::text AS s, count(*) AS c FROM generate_series(1, 130000) x GROUP BY 1) q');
  });
});

describe('DISTINCT over several columns', () => {
  for (const k of ['t, i', 'f, n', 'b, d, t', 'c, o', 'i, f, b, n, t, d, c, o']) {
    it(`DISTINCT ${k}`, async () => {
      await sameBag(`SELECT DISTINCT ${k} FROM a`);
    });
  }
  it('more than 100,000 distinct rows', async () => {
    await sameList('SELECT count(*) FROM (SELECT DISTINCT (x % 150000)::text, x % 3 = 0 FROM generate_series(1, 300000) x) q');
  });
  it('empty input', async () => {
    await sameBag('SELECT DISTINCT t, i FROM e');
  });
});

describe('hash joins', () => {
  const TYPES = ['inner', 'left', 'right', 'full'];
  const ON = ['a.t = b.t AND a.i = b.i', 'a.b = b.b AND a.d = b.d', 'a.f = b.f AND a.n = b.n', 'a.c = b.c AND a.o = b.o', 'a.t = b.t', 'a.f = b.f', 'a.i = b.i', 'a.id = b.id'];
  for (const on of ON) {
    for (const type of TYPES) {
      it(`${type} join on ${on}, probe side filtered`, async () => {
        await sameBag(`SELECT a.id, b.id, a.t, b.n FROM a ${type} JOIN b ON ${on} WHERE a.id IS NULL OR a.id % 3 <> 0`);
        // A filter below the join's probe side (pushed down by the planner) and a count over the join.
        await sameBag(`SELECT count(*) FROM (SELECT * FROM a WHERE a.i < 2 OR a.f > 0) a ${type} JOIN b ON ${on}`);
      });
    }
    it(`count(*) and count(b.id) over an inner join on ${on}`, async () => {
      await sameList(`SELECT count(*) FROM a JOIN b ON ${on} WHERE a.id % 2 = 0`);
      await sameList(`SELECT count(*), count(b.id) FROM a JOIN b ON ${on}`);
      await sameList(`SELECT count(*) FROM a JOIN b ON ${on} JOIN b b2 ON b2.id = a.id`);
    });
  }
  it('unique build keys (primary-key-like dimension) with a filtered probe side', async () => {
    await sameBag('SELECT b.t, count(*), sum(a.i) FROM a JOIN (SELECT * FROM b WHERE id < 200) b ON a.id = b.id + 5 WHERE a.f < 3 GROUP BY b.t');
    await sameList('SELECT count(*) FROM a JOIN b ON a.id = b.id WHERE a.t IS NOT NULL');
    await sameBag('SELECT a.id, b.id FROM a RIGHT JOIN b ON a.id = b.id WHERE a.i IS NULL OR a.i > 0');
  });
  it('empty sides', async () => {
    await sameBag('SELECT count(*) FROM a JOIN e ON a.t = e.t AND a.i = e.i');
    await sameBag('SELECT a.id, e.id FROM a LEFT JOIN e ON a.t = e.t AND a.i = e.i');
    await sameBag('SELECT a.id, e.id FROM e FULL JOIN a ON a.t = e.t AND a.i = e.i');
    await sameBag('SELECT count(*) FROM (SELECT * FROM a WHERE false) a JOIN b ON a.t = b.t AND a.i = b.i');
  });
});

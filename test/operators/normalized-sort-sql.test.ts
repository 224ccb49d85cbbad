/**
 * ORDER BY, Top-N and DISTINCT over every sortable type, against PostgreSQL (PGlite): NULLS FIRST / LAST,
 * DESC, several keys, ties, multibyte and empty text, long text with equal prefixes (the normalized key
 * holds only a prefix), floats with NaN / -0 / ±Infinity, numerics whose doubles coincide, intervals that
 * are equal in different units. The tables are large enough (> 256 rows) for the normalized-key radix
 * sort, and one has more rows than a sort slice, so the sliced path runs too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asSqlError, pgliteAndQuire, type SqlConnection } from '../harness/connection.js';
import { rng } from './helpers.js';

const LONG = 'x'.repeat(40);
const TEXTS = [
  '',
  'a',
  'A',
  'ab',
  'abc',
  'b',
  'Z',
  'é',
  'ß',
  '日本',
  '日本語',
  '😀',
  '😀x',
  '\uE000',
  '\uFFFD',
  'a😀',
  'a\uFFFD',
  'zz',
  'a b',
  "o'k",
  LONG,
  LONG + 'a',
  LONG + 'b',
  LONG + 'é',
  LONG + '😀',
  'é'.repeat(17),
  'é'.repeat(17) + 'a',
  'é'.repeat(16) + 'e',
  'y'.repeat(31),
  'y'.repeat(32),
  'y'.repeat(33),
];

interface Col {
  name: string;
  sql: string;
  values: readonly string[];
}

const q = (s: string): string => `'${s.replace(/'/g, "''")}'`;

const COLS: Col[] = [
  { name: 'i2', sql: 'int2', values: ['-32768', '32767', '0', '-1', '1', '7', '-7'] },
  { name: 'i4', sql: 'int4', values: ['-2147483648', '2147483647', '0', '-1', '1', '300', '-300', '65536'] },
  {
    name: 'i8',
    sql: 'int8',
    values: ['-9223372036854775808', '9223372036854775807', '9007199254740993', '9007199254740992', '-9007199254740993', '0', '-1', '1', '4294967296', '-4294967296'],
  },
  { name: 'f4', sql: 'float4', values: ["'NaN'", "'-0'", '0', "'Infinity'", "'-Infinity'", '1.5', '-2.25', '3.4e38'] },
  {
    name: 'f8',
    sql: 'float8',
    values: ["'NaN'", "'-0'", '0', "'Infinity'", "'-Infinity'", '1.5', '-2.25', '1e308', '-1e308', '5e-324', '-5e-324'],
  },
  {
    name: 'n',
    sql: 'numeric',
    values: [
      "'NaN'",
      "'Infinity'",
      "'-Infinity'",
      '1.10',
      '1.1',
      '-0.001',
      '0',
      '123456789012345678901234567890.123',
      '123456789012345678901234567890.124',
      '-123456789012345678901234567890.123',
      '0.30000000000000000001',
      '0.3',
    ],
  },
  { name: 'b', sql: 'bool', values: ['true', 'false'] },
  { name: 'd', sql: 'date', values: ["'2020-01-01'", "'1999-12-31'", "'infinity'", "'-infinity'", "'4713-01-01 BC'", "'2020-01-02'"] },
  {
    name: 'ts',
    sql: 'timestamp',
    // Past about the year 2255 the microseconds no longer fit a double exactly (held as bigints).
    values: ["'2020-01-01 00:00:00'", "'2020-01-01 00:00:00.000001'", "'1970-01-01'", "'1969-12-31 23:59:59.5'", "'infinity'", "'-infinity'", "'5000-01-01 00:00:00'", "'5000-01-01 00:00:00.000001'", "'294276-12-31 23:59:59.999999'", "'4713-01-01 00:00:00 BC'"],
  },
  {
    name: 'tz',
    sql: 'timestamptz',
    values: ["'2020-01-01 00:00:00+00'", "'2020-01-01 01:00:00+01'", "'2020-01-01 00:00:01+00'", "'1960-06-01 12:00:00+00'", "'infinity'", "'-infinity'", "'9999-01-01 00:00:00.000001+00'", "'9999-01-01 00:00:00+00'"],
  },
  {
    name: 'iv',
    sql: 'interval',
    values: ["'1 mon'", "'30 days'", "'1 day'", "'24 hours'", "'-1 year'", "'1 year'", "'360 days'", "'0'", "'1 microsecond'", "'100000000 years'", "'99999999 years 11 mons'"],
  },
  { name: 't', sql: 'text', values: TEXTS.map(q) },
  { name: 'vc', sql: 'varchar(60)', values: TEXTS.map(q) },
  { name: 'bc', sql: 'char(6)', values: ["'ab'", "'ab  '", "''", "'a'", "'é'", "'abcdef'", "'b'"] },
];

/** A table of `rows` rows: id, then every column of COLS with ~10% NULLs, values drawn from its pool. */
function tableSql(name: string, rows: number, seed: number): string[] {
  const r = rng(seed);
  const out = [`CREATE TABLE ${name} (id int, ${COLS.map((c) => `${c.name} ${c.sql}`).join(', ')})`];
  for (let s = 0; s < rows; s += 500) {
    const vals: string[] = [];
    for (let i = s; i < Math.min(rows, s + 500); i++) {
      const cells = COLS.map((c) => (r() < 0.1 ? 'NULL' : `(${c.values[Math.floor(r() * c.values.length)]!})::${c.sql}`));
      vals.push(`(${i}, ${cells.join(', ')})`);
    }
    out.push(`INSERT INTO ${name} VALUES ${vals.join(', ')}`);
  }
  return out;
}

async function outcome(c: SqlConnection, sql: string): Promise<string> {
  try {
    const r = await c.query(sql);
    return r.rows.map((row) => row.map((v) => (v === null ? 'NULL' : v)).join('|')).join('\n');
  } catch (e) {
    return `ERROR ${asSqlError(e).code ?? '?'} ${asSqlError(e).message}`;
  }
}

let pg: SqlConnection;
let quire: SqlConnection;

beforeAll(async () => {
  const setup = ["SET TimeZone = 'UTC'", "SET IntervalStyle = 'postgres'", ...tableSql('k', 2000, 11)];
  // Text columns only, more rows than one sort slice: the sliced normalized-key sort.
  setup.push(
    'CREATE TABLE big (id int, t text, i4 int4)',
    ...Array.from({ length: 70 }, (_, c) => {
      const r = rng(1000 + c);
      const vals: string[] = [];
      for (let i = c * 1000; i < (c + 1) * 1000; i++) {
        const t = r() < 0.05 ? 'NULL' : q(TEXTS[Math.floor(r() * TEXTS.length)]! + (r() < 0.5 ? String(Math.floor(r() * 50)) : ''));
        vals.push(`(${i}, ${t}, ${r() < 0.05 ? 'NULL' : Math.floor(r() * 100) - 50})`);
      }
      return `INSERT INTO big VALUES ${vals.join(', ')}`;
    }),
  );
  ({ pg, q: quire } = await pgliteAndQuire(setup));
}, 300_000);

afterAll(async () => {
  await pg.close?.();
  await quire.close?.();
});

async function agree(sqls: readonly string[]): Promise<void> {
  const failures: string[] = [];
  for (const sql of sqls) {
    const want = await outcome(pg, sql);
    const got = await outcome(quire, sql);
    expect(want.startsWith('ERROR'), `${sql}\n${want}`).toBe(false);
    if (want !== got && failures.length < 5) {
      const w = want.split('\n');
      const g = got.split('\n');
      let i = 0;
      while (i < w.length && w[i] === g[i]) i++;
      failures.push(`${sql}\n  first difference at row ${i} of ${w.length} (quire: ${g.length})\n  postgres: ${w.slice(i, i + 3).join(' / ')}\n  quire:    ${g.slice(i, i + 3).join(' / ')}`);
    }
  }
  expect(failures, failures.join('\n\n')).toEqual([]);
}

const DIRS = ['ASC NULLS FIRST', 'ASC NULLS LAST', 'DESC NULLS FIRST', 'DESC NULLS LAST'];

describe('normalized sort keys vs PostgreSQL', () => {
  it('ORDER BY every type, both directions and NULL placements (id breaks ties)', async () => {
    const sqls: string[] = [];
    for (const c of COLS) for (const d of DIRS) sqls.push(`SELECT ${c.name}, id FROM k ORDER BY ${c.name} ${d}, id`);
    await agree(sqls);
  }, 300_000);

  it('ORDER BY several keys of mixed types, ties broken by later keys', async () => {
    const r = rng(5);
    const sqls: string[] = [];
    for (let i = 0; i < 40; i++) {
      const n = 2 + Math.floor(r() * 3);
      const pool = [...COLS];
      const keys: string[] = [];
      for (let j = 0; j < n; j++) {
        const c = pool.splice(Math.floor(r() * pool.length), 1)[0]!;
        keys.push(`${c.name} ${DIRS[Math.floor(r() * 4)]!}`);
      }
      const cols = keys.map((k) => k.split(' ')[0]!).join(', ');
      sqls.push(`SELECT ${cols}, id FROM k ORDER BY ${keys.join(', ')}, id`);
    }
    await agree(sqls);
  }, 300_000);

  it('Top-N on every type: LIMIT with and without OFFSET', async () => {
    const sqls: string[] = [];
    for (const c of COLS) {
      for (const d of DIRS) {
        sqls.push(`SELECT ${c.name}, id FROM k ORDER BY ${c.name} ${d}, id LIMIT 7`);
        sqls.push(`SELECT ${c.name}, id FROM k ORDER BY ${c.name} ${d}, id LIMIT 20 OFFSET 300`);
      }
    }
    sqls.push('SELECT t, id FROM big ORDER BY t DESC, id LIMIT 100');
    sqls.push('SELECT t, id FROM big ORDER BY t NULLS FIRST, id LIMIT 100');
    // A non-NULL boundary, so the heap's text prefilter runs; with ties, rows equal to it must stay.
    sqls.push('SELECT t, id FROM big ORDER BY t DESC NULLS LAST, id LIMIT 100');
    sqls.push("SELECT count(*) FROM (SELECT substr(t, 1, 1) AS c FROM big WHERE t < 'zz' ORDER BY c DESC NULLS LAST FETCH FIRST 100 ROWS WITH TIES) x");
    sqls.push("SELECT count(*) FROM (SELECT substr(t, 1, 1) AS c FROM big ORDER BY c FETCH FIRST 100 ROWS WITH TIES) x");
    sqls.push('SELECT t, i4, id FROM big ORDER BY t, i4 DESC, id LIMIT 50 OFFSET 2000');
    // Above 1,024 kept rows Top-N buffers and selects, with the text boundary as a prefilter.
    sqls.push('SELECT t, id FROM big ORDER BY t DESC NULLS FIRST, id LIMIT 100 OFFSET 3000');
    sqls.push('SELECT t, id FROM big ORDER BY t NULLS FIRST, id LIMIT 20 OFFSET 5000');
    sqls.push('SELECT count(*), min(i4), max(i4), sum(i4) FROM (SELECT t, i4 FROM big ORDER BY t DESC NULLS LAST FETCH FIRST 1500 ROWS WITH TIES) x');
    sqls.push('SELECT count(*), min(t), max(t) FROM (SELECT t FROM big ORDER BY t FETCH FIRST 2500 ROWS WITH TIES) x');
    // Few distinct first keys: the boundary settles on the final K-th value early, so its ties matter.
    sqls.push("SELECT count(*) FROM (SELECT substr(t, 1, 1) AS c FROM big WHERE t < 'zz' ORDER BY c DESC NULLS LAST FETCH FIRST 1500 ROWS WITH TIES) x");
    sqls.push("SELECT count(*) FROM (SELECT substr(t, 1, 1) AS c FROM big ORDER BY c FETCH FIRST 1500 ROWS WITH TIES) x");
    await agree(sqls);
  }, 300_000);

  it('DISTINCT over one and several columns of every type', async () => {
    const sqls: string[] = [];
    for (const c of COLS) sqls.push(`SELECT DISTINCT ${c.name} FROM k ORDER BY 1`);
    const names = COLS.map((c) => c.name);
    for (let i = 0; i < names.length; i++) {
      const a = names[i]!;
      const b = names[(i + 5) % names.length]!;
      sqls.push(`SELECT DISTINCT ${a}, ${b} FROM k ORDER BY 1, 2`);
      sqls.push(`SELECT count(*) FROM (SELECT DISTINCT ${a}, ${b}, b FROM k) x`);
    }
    sqls.push(`SELECT count(*) FROM (SELECT DISTINCT ${names.join(', ')} FROM k) x`);
    sqls.push('SELECT count(*) FROM (SELECT DISTINCT t, i4 FROM big) x');
    sqls.push('SELECT t, i4 FROM (SELECT DISTINCT t, i4 FROM big) x ORDER BY t DESC NULLS LAST, i4 LIMIT 200');
    await agree(sqls);
  }, 300_000);

  it('a full sort larger than one slice: text with NULLs, ties, long equal prefixes', async () => {
    await agree([
      'SELECT t, i4, id FROM big ORDER BY t, i4, id',
      'SELECT t, id FROM big ORDER BY t DESC NULLS LAST, id',
      'SELECT i4, t, id FROM big ORDER BY i4 NULLS FIRST, t DESC, id',
    ]);
  }, 300_000);

  it('window partitions by text keys', async () => {
    await agree([
      'SELECT id, t, sum(i4) OVER (PARTITION BY t ORDER BY i4, id ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) FROM big ORDER BY id',
      'SELECT id, row_number() OVER (PARTITION BY vc, bc ORDER BY iv DESC, n, id) FROM k ORDER BY id',
      'SELECT id, rank() OVER (PARTITION BY b ORDER BY t NULLS FIRST, f8) FROM k ORDER BY id',
    ]);
  }, 300_000);
});

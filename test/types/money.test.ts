/**
 * money beyond the slt file: large tables (typed columns that widen past 2^53 cents, hash grouping,
 * sorting, moving-frame sums) compared with PGlite, COPY text round trips, a database directory, and the
 * PostgreSQL protocol (OID 790, cash_send's int64 layout, text and binary parameters).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { RawClient, names, rawFields, serialize, startFixture, type Fixture } from '../pgwire/helpers.js';
import { decodeParam, encoderFor } from '../../src/server/pgwire/types.js';
import { T } from '../../src/common/types.js';
import { newPGlite } from '../common/pglite.js';

const dir = mkdtempSync(join(tmpdir(), 'quire-money-'));
let pgl: PGlite;
let fx: Fixture;

// Cents spread over the whole int64 range for some rows, so columns hold both numbers and bigints.
const FILL = `insert into mt select g, g % 37,
  case when g % 11 = 0 then null
       when g % 101 = 0 then ((g * 7919) % 1000 * 90000000000000 + g)::numeric::money
       else (((g * 7919) % 200003 - 100000)::numeric / 100)::money end
  from generate_series(1, 5000) g`;

beforeAll(async () => {
  pgl = newPGlite();
  fx = await startFixture({});
  await fx.db.query('create table mw (id int, v money)');
  await fx.db.query("insert into mw values (1, '1.10'), (2, '-92233720368547758.08'), (3, null)");
});
afterAll(async () => {
  await pgl.close();
  await fx.server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function both(db: Database, sql: string): Promise<void> {
  const mine = (await db.query(sql)).rows.map((r) => r.map((v) => (v === null ? null : String(v))));
  const theirs = (await pgl.query<unknown[]>(sql, [], { rowMode: 'array' })).rows.map((r) => r.map((v) => (v === null ? null : String(v))));
  expect(mine).toEqual(theirs);
}

describe('money on large tables', () => {
  it('groups, sorts, deduplicates and sums over moving frames as PostgreSQL does', async () => {
    const db = await Database.create();
    for (const target of [db, pgl]) {
      await (target as Database).query('create table mt (id int, k int, v money)');
      await (target as Database).query(FILL);
    }
    await both(db, 'select v::text from mt order by v desc nulls first, id limit 40');
    await both(db, 'select k, min(v)::text, max(v)::text, count(v) from mt group by k order by k');
    await both(db, "select k, sum(v)::text from mt where v between '-1000' and '1000' group by k order by k");
    await both(db, 'select count(distinct v), count(*) from mt');
    await both(db, "select id, sum(v) over (order by id rows between 3 preceding and 2 following)::text from mt where v < '1000000' order by id");
    await both(db, "select id, sum(v) over (partition by k order by id rows between current row and unbounded following)::text from mt where v < '1000000' order by id limit 300");
    await both(db, 'select a.id, b.id from mt a join mt b on a.v = b.v and a.id < b.id order by 1, 2 limit 50');
    await expect(db.query('select sum(v) from mt')).rejects.toMatchObject({ code: '22003', message: 'money out of range' });
    await db.close();
  });
});

describe('money in files', () => {
  it('round-trips through COPY text and csv', async () => {
    const db = await Database.create();
    await db.query('create table c1 (id int, v money)');
    await db.query("insert into c1 values (1, '$1,234.56'), (2, '-0.01'), (3, null), (4, '92233720368547758.07'), (5, '-92233720368547758.08')");
    for (const fmt of ['text', 'csv']) {
      const f = join(dir, `m.${fmt}`);
      await db.query(`copy c1 to '${f}' (format ${fmt})`);
      if (fmt === 'text') expect(readFileSync(f, 'utf8')).toBe('1\t$1,234.56\n2\t-$0.01\n3\t\\N\n4\t$92,233,720,368,547,758.07\n5\t-$92,233,720,368,547,758.08\n');
      await db.query(`create table c_${fmt} (id int, v money)`);
      await db.query(`copy c_${fmt} from '${f}' (format ${fmt})`);
      expect((await db.query(`select count(*) from c1 full join c_${fmt} c using (id) where c1.v is distinct from c.v`)).rows).toEqual([[0]]);
    }
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, '1,12.5.1\n');
    await expect(db.query(`copy c1 from '${bad}' (format csv)`)).rejects.toMatchObject({ code: '22P02', message: 'invalid input syntax for type money: "12.5.1"' });
    await db.close();
  });

  it('comes back from a database directory', async () => {
    const path = join(dir, 'db');
    let db = await Database.create({ path });
    await db.query('create table p (id int, v money)');
    await db.query("insert into p select g, (g::int8 * 1000000007)::money from generate_series(1, 3000) g");
    await db.query("insert into p values (0, '-92233720368547758.08'), (-1, null)");
    const check = 'select v::text as t, id from p order by v nulls first limit 4';
    const before = (await db.query(check)).rows;
    await db.close();
    db = await Database.create({ path });
    expect((await db.query(check)).rows).toEqual(before);
    expect(before).toEqual([[null, -1], ['-$92,233,720,368,547,758.08', 0], ['$1,000,000,007.00', 1], ['$2,000,000,014.00', 2]]);
    await db.close();
  });
});

describe('money on the PostgreSQL protocol', () => {
  function client(): pg.Client {
    return new pg.Client({ host: '127.0.0.1', port: fx.server.port, user: 'node', database: 'quire', types: { getTypeParser: () => (v: unknown) => v } as never });
  }

  it('reports OID 790 and prints values in text format', async () => {
    const c = client();
    await c.connect();
    try {
      const r = await c.query({ text: 'select v, pg_typeof(v)::text from mw order by id', rowMode: 'array' });
      expect(r.fields.map((f) => f.dataTypeID)).toEqual([790, 25]);
      expect(r.rows).toEqual([
        ['$1.10', 'money'],
        ['-$92,233,720,368,547,758.08', 'money'],
        [null, 'money'],
      ]);
      const p = await c.query({ text: 'select id from mw where v = $1', values: ['$1.10'], rowMode: 'array' });
      expect(p.rows).toEqual([['1']]);
      const t = await c.query({ text: "select typname, typlen from pg_type where oid = 790", rowMode: 'array' });
      expect(t.rows).toEqual([['money', '8']]);
    } finally {
      await c.end();
    }
  });

  it('sends and takes the int64 binary layout', async () => {
    const c = await RawClient.ready(fx.server.port);
    const ms = await c.roundTrip([
      serialize.parse({ text: 'select v from mw where id = 2', types: [] }),
      serialize.bind({ values: [], binary: true }),
      serialize.execute({}),
      serialize.sync(),
    ]);
    expect(names(ms)).toContain('dataRow');
    const [v] = rawFields(c.rawRows.at(-1)!) as Buffer[];
    expect(v!.readBigInt64BE(0)).toBe(-(2n ** 63n));
    c.end();
    expect(decodeParam(encoderFor(T.money, 1, {})(110), 1, T.money)).toBe('$1.10');
    expect(decodeParam(encoderFor(T.money, 1, {})(2n ** 63n - 1n), 1, T.money)).toBe('$92,233,720,368,547,758.07');
  });
});

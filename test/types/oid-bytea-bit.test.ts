/**
 * oid, bytea, bit and bit varying against PostgreSQL (PGlite): input and output, casts, operators,
 * ordering, grouping, joins, functions and aggregates, and the errors bad input gets (compared by
 * SQLSTATE and message).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeText, pgliteAndQuire, type SqlConnection } from '../harness/connection.js';

const SETUP = [
  'create table t2 (f1 bigint, f2 oid)',
  "insert into t2 values (1, 1), (2, 4294967295), (3, 2), (4, null), (5, 2)",
  'create table b (id int, v bytea)',
  "insert into b values (1, '\\x00ff'), (2, 'abc'), (3, '\\x'), (4, null), (5, 'a\\\\b\\001'), (6, 'abc'), (7, '\\x61')",
  'create table bits (id int, x bit(4), y varbit(6))',
  "insert into bits values (1, B'0101', B'1'), (2, '1100', '101010'), (3, X'F', ''), (4, null, null), (5, B'0101', B'011')",
  'create table bitwise_test (i2 int2, i4 int4, i8 int8, i int4, x int2, y bit(4))',
  "insert into bitwise_test values (1, 1, 1, 1, 1, B'0101'), (3, 3, 3, null, 2, B'0100'), (7, 7, 7, 3, 4, B'1100')",
];

const outcome = outcomeText;

let pg: SqlConnection;
let q: SqlConnection;

beforeAll(async () => {
  ({ pg, q } = await pgliteAndQuire(SETUP));
}, 60_000);
afterAll(async () => {
  await pg.close?.();
  await q.close?.();
});

async function same(sqls: string[]): Promise<void> {
  for (const sql of sqls) {
    const want = await outcome(pg, sql);
    expect(await outcome(q, sql), sql).toBe(want);
  }
}

describe('oid', () => {
  it('reads, prints and casts like PostgreSQL', async () => {
    await same([
      "select '0'::oid, '4294967295'::oid, '-1'::oid, '-2147483648'::oid, '  42  '::oid",
      "select (-1)::oid, 7::int2::oid, 4294967295::int8::oid, 4294967295::oid::int8, 4294967295::oid::int4, 12::oid::text",
      "select '4294967296'::oid",
      // (Below -2147483648 PGlite, a 32-bit build, wraps where 64-bit PostgreSQL, and Quire, refuse.)
      "select 'abc'::oid",
      "select '12x'::oid",
      "select 4294967296::int8::oid",
      "select (-1)::int8::oid",
      "select 1.5::oid",
      "select 1::oid = 1, 2::oid > 1::oid, 4294967295::oid > 1::oid, 3::oid = 3::int8",
    ]);
  });
  it('orders, groups and joins', async () => {
    await same([
      'select f1, f2 from t2 order by f2, f1',
      'select f2, count(*) from t2 group by f2 order by f2 nulls first',
      'select a.f1, b.f1 from t2 a join t2 b on a.f2 = b.f2 where a.f1 < b.f1 order by 1, 2',
      'select f1 from t2 where f2 = 4294967295',
      'select min(f2), max(f2) from t2',
      'select distinct f2 from t2 order by 1',
      'select f1 from t2 where f2 in (1, 2) order by 1',
    ]);
  });
});

describe('bytea', () => {
  it('reads hex and escape input and prints hex', async () => {
    await same([
      "select '\\x00ff5C'::bytea, 'abc'::bytea, 'a\\\\b'::bytea, '\\001\\377'::bytea, 'é'::bytea, ''::bytea, '\\x 01 02'::bytea",
      "select '\\x0'::bytea",
      "select '\\xzz'::bytea",
      "select '\\8'::bytea",
      "select 'a\\b'::bytea",
      "select 'abc'::text::bytea, '\\x6162'::bytea::text",
    ]);
  });
  it('encodes, decodes, measures and concatenates', async () => {
    await same([
      "select encode('\\x00ff5c41'::bytea, 'escape'), encode('\\x00ff'::bytea, 'hex'), encode('hello world'::bytea, 'base64')",
      "select encode(decode(repeat('ab', 100), 'hex'), 'base64')",
      "select decode('YWJj', 'base64'), decode('YQ==', 'base64'), decode('61 62', 'hex'), decode('a\\\\b\\001', 'escape')",
      "select decode('YW=j', 'base64')",
      "select decode('YWJ', 'base64'), decode('YW==YWJj', 'base64')",
      "select decode('Y===', 'base64')",
      "select decode('YWJ', 'base64')",
      "select decode('Y*Jj', 'base64')",
      "select decode('6', 'hex')",
      "select decode('zz', 'hex')",
      "select encode('a'::bytea, 'rot13')",
      "select length('\\x0102'::bytea), octet_length('\\x010203'::bytea), '\\x01'::bytea || '\\x02'::bytea",
    ]);
  });
  it('orders, groups, compares and aggregates', async () => {
    await same([
      'select id, v from b order by v, id',
      'select id, v from b order by v desc nulls last, id',
      'select v, count(*) from b group by v order by v',
      'select distinct v from b order by v',
      "select id from b where v = 'abc' order by id",
      "select id from b where v < '\\x61' order by id",
      'select min(v), max(v) from b',
      "select string_agg(v, '\\x2c'::bytea order by id) from b",
      "select string_agg(v, '' order by id) from b",
      'select string_agg(v, null order by id) from b',
      'select x.id, y.id from b x join b y on x.v = y.v where x.id < y.id order by 1, 2',
    ]);
  });
});

describe('bit and bit varying', () => {
  it('reads and prints, and checks lengths', async () => {
    await same([
      "select B'0101', X'1F', '0101'::bit(4), '101'::varbit, B'01'::bit(4), B'010101'::bit(3), B'0101'::varbit(2)",
      "select '0101'::bit(3)",
      "select '012'::bit(3)",
      "select 'x1G'::varbit",
      "select '1111111'::varbit(3)",
      "select 5::bit(8), (-1)::bit(4), 5::int8::bit(40), B'0101'::int4, B'1111'::int8, B'1'::bit(40)::int4",
      "select (B'1' || repeat('0', 40))::varbit::int4",
    ]);
  });
  it('applies & | # ~ and || and compares', async () => {
    await same([
      "select B'0101' & B'1100', B'0101' | B'1100', B'0101' # B'1100', ~B'0101', B'01' || B'1'",
      "select B'01' & B'1'",
      "select B'01' | B'1'",
      "select B'10' < B'100', B'11' > B'100', B'0101' = B'0101', B'1' = B'10'",
      'select id, x, y from bits order by x, id',
      'select id, y from bits order by y desc, id',
      'select x, count(*) from bits group by x order by x',
      "select id from bits where x = '0101' order by id",
      'select a.id, b.id from bits a join bits b on a.x = b.x where a.id < b.id',
    ]);
  });
  it('errors on a wrong length when stored', async () => {
    await same([
      "insert into bits values (9, B'01', null)",
      "insert into bits values (9, null, B'1010101')",
    ]);
  });
  it('aggregates with bit_and, bit_or and bit_xor', async () => {
    await same([
      'select bit_and(i2), bit_and(i4), bit_and(i8), bit_and(i), bit_and(x), bit_and(y) from bitwise_test',
      'select bit_or(i2), bit_or(i4), bit_or(i8), bit_or(i), bit_or(x), bit_or(y) from bitwise_test',
      'select bit_xor(i2), bit_xor(i4), bit_xor(i8), bit_xor(i), bit_xor(x), bit_xor(y) from bitwise_test',
      'select bit_and(y), bit_or(y), bit_xor(y) from bitwise_test where false',
      'select i4 % 2, bit_xor(i8), bit_or(y) from bitwise_test group by 1 order by 1',
      'select bit_xor(i4) over (order by i4), bit_or(y) over (order by i4) from bitwise_test order by i4',
      "select bit_and(v) from (values (B'01'), (B'1')) t(v)",
    ]);
  });
});

/** Bitwise operators (& | # ~ << >>) and the prefix math operators (@ |/ ||/) against PostgreSQL. */
import { afterAll, beforeAll, describe as group, expect, it } from 'vitest';
import { compareAll, f8, i2, i4, i8, num, f4, Pg, rng, type Arg } from './harness.js';
import { startEngines, type SqlDiff } from './sql-diff.js';

let pg: Pg;
let sql: SqlDiff;
beforeAll(async () => {
  ({ pg, sql } = await startEngines(
    'create table b (x int2, y int4, z int8); insert into b values (5, -7, 9007199254740993), (null, 1, -1), (-32768, null, null)',
  ));
});
afterAll(async () => {
  await sql.close();
});

const INT2 = [0, 1, -1, 5, -6, 255, 32767, -32768, 0x5555, -0x5556];
const INT4 = [0, 1, -1, 7, -8, 0xffff, 2147483647, -2147483648, 0x55555555, 123456789];
const INT8: (number | bigint)[] = [
  0, 1, -1, 6, -9, 2 ** 31, -(2 ** 31) - 1, 2 ** 32, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 2 ** 53, -(2 ** 53),
  9223372036854775807n, -9223372036854775808n, 0x5555555555555555n, 9007199254740993n,
];
const SHIFTS = [0, 1, 2, 7, 15, 16, 17, 30, 31, 32, 33, 47, 62, 63, 64, 65, 100, -1, -2, -31, -32, -33, -63, -64, 2147483647, -2147483648];

function pairs<A>(xs: A[]): [A, A][] {
  return xs.flatMap((a) => xs.map((b): [A, A] => [a, b]));
}

group('bitwise operators', () => {
  it('& | # on same widths', async () => {
    const cases = ['&', '|', '#'].flatMap((name) => [
      ...pairs(INT2).map(([a, b]) => ({ name, args: [i2(a), i2(b)] })),
      ...pairs(INT4).map(([a, b]) => ({ name, args: [i4(a), i4(b)] })),
      ...pairs(INT8).map(([a, b]) => ({ name, args: [i8(a), i8(b)] })),
      { name, args: [i4(null), i4(1)] },
      { name, args: [i8(1), i8(null)] },
    ]);
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('prefix ~', async () => {
    const cases = [...INT2.map((v) => ({ name: '~', args: [i2(v)] })), ...INT4.map((v) => ({ name: '~', args: [i4(v)] })), ...INT8.map((v) => ({ name: '~', args: [i8(v)] }))];
    cases.push({ name: '~', args: [i8(null)] });
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('<< and >> with counts beyond the width and negative counts', async () => {
    const cases = ['<<', '>>'].flatMap((name) =>
      SHIFTS.flatMap((n) => [
        ...INT2.map((v) => ({ name, args: [i2(v), i4(n)] })),
        ...INT4.map((v) => ({ name, args: [i4(v), i4(n)] })),
        ...INT8.map((v) => ({ name, args: [i8(v), i4(n)] })),
      ]),
    );
    cases.push({ name: '<<', args: [i8(1), i4(null)] }, { name: '>>', args: [i2(null), i4(1)] });
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('random int8 values', async () => {
    const r = rng(7);
    const rint8 = () => BigInt.asIntN(64, (BigInt(Math.floor(r() * 2 ** 32)) << 32n) | BigInt(Math.floor(r() * 2 ** 32))) >> BigInt(Math.floor(r() * 64));
    const cases: { name: string; args: Arg[] }[] = [];
    for (let k = 0; k < 300; k++) {
      cases.push({ name: ['&', '|', '#'][k % 3]!, args: [i8(rint8()), i8(rint8())] });
      cases.push({ name: k % 2 ? '<<' : '>>', args: [i8(rint8()), i4(Math.floor(r() * 140) - 70)] });
      cases.push({ name: '~', args: [i8(rint8())] });
    }
    expect(await compareAll(pg, cases)).toEqual([]);
  });
});

group('prefix math operators', () => {
  it('@ (abs) with overflow, |/ (sqrt) of negatives, ||/ (cbrt)', async () => {
    const FL = [0, -0, 2, -2, 16, 0.25, -27, 1e308, NaN, Infinity, -Infinity];
    const cases = [
      ...INT2.map((v) => ({ name: '@', args: [i2(v)] })),
      ...INT4.map((v) => ({ name: '@', args: [i4(v)] })),
      ...INT8.map((v) => ({ name: '@', args: [i8(v)] })),
      ...FL.map((v) => ({ name: '@', args: [f8(v)] })),
      ...FL.map((v) => ({ name: '@', args: [f4(v)] })),
      ...['-1.50', '0', 'NaN', '-Infinity', '12345678901234567890.123'].map((v) => ({ name: '@', args: [num(v)] })),
      ...FL.map((v) => ({ name: '|/', args: [f8(v)] })),
      ...FL.map((v) => ({ name: '||/', args: [f8(v)] })),
      { name: '|/', args: [f8(null)] },
    ];
    expect(await compareAll(pg, cases)).toEqual([]);
  });
});

group('operator syntax through the engine', () => {
  it('parses and resolves like PostgreSQL (mixed widths, literals, precedence, columns)', async () => {
    expect(
      await sql.mismatches([
        'select 5 & 3, 5 | 3, 5 # 3, ~5, 1 << 4, -16 >> 2',
        'select 1::int2 & 3::int8, 7::int2 | 8, 6::int8 # 3::int2, ~ 0::int2',
        'select 1::int2 << 15, 1::int2 << 16, 1::int8 << 63, 1 << 31, (-1)::int8 >> 70',
        "select 12 & '10', '12' | 3",
        'select 1 + 2 & 3, 1 << 2 + 1, ~1 + 1, 2 # 3 & 1',
        'select @ -5, @ -2.5, |/ 16, ||/ 27, |/ 2::int4, @ (-32768)::int2',
        'select |/ -1',
        // Not the bare literal -2147483648: Quire types it bigint where PostgreSQL has integer.
        'select @ (-2147483648)::int4, @ (-9223372036854775808)::int8',
        'select x & 1, y | 2, z # 3, ~z, z << 2, z >> 1, x << y from b order by y nulls first',
        'select sum(y & 3), bit_or(z >> 1) from b',
        'select 1.5 & 2',
        'select 1::float8 << 2',
      ]),
    ).toEqual([]);
  });
  it('EXPLAIN renders them as operators', async () => {
    const r = await sql.db.query('explain (format quire) select y & 1, ~y, z << 2, @ y, |/ c from (select x, y, z, 2.0::float8 as c from b) s');
    const plan = r.rows.map((row) => String(row[0])).join('\n');
    for (const s of ['(y & 1)', '(~ y)', '(z << 2)', '(@ y)', '(|/ c)']) expect(plan).toContain(s);
  });
});

/**
 * Top-N over stored int4 / float8 / timestamp columns, whose prefilter passes over blocks of rows by
 * their recorded bounds (column-stats.ts blockBounds), against PostgreSQL: NULLs and NaN inside some
 * blocks (never passed over), ties at the boundary (a block whose bound equals it must be read),
 * -0 beside 0, infinities, both directions and NULL placements, OFFSET and WITH TIES, keys sorted
 * against the direction (the boundary moves on every block), and a table grown by small INSERTs (its
 * open batch is extended, not stored whole).
 */
import { describe, it } from 'vitest';
import { agreementSuite } from '../harness/agree.js';
import { rng } from '../common/pg-helper.js';

const ROWS = 20_000;

function setupSql(): string[] {
  const r = rng(9090);
  const vals: string[] = [];
  for (let i = 1; i <= ROWS; i++) {
    const blk = Math.floor(i / 128);
    // x: a NULL in every 37th block, a NaN in every 53rd, a few infinities and signed zeros; coarse
    // values so the boundary ties with rows in other blocks.
    let x = String(Math.floor(r() * 5000) / 4);
    if (blk % 37 === 5 && r() < 0.05) x = 'NULL';
    else if (blk % 53 === 7 && r() < 0.02) x = "'NaN'";
    else if (r() < 0.0005) x = r() < 0.5 ? "'Infinity'" : "'-Infinity'";
    else if (r() < 0.001) x = r() < 0.5 ? "'-0'" : '0';
    const y = blk % 41 === 3 && r() < 0.05 ? 'NULL' : String(Math.floor(r() * 3000) - 1500);
    const ts = `timestamp '2021-01-01' + interval '${Math.floor(r() * 50_000_000)} seconds'`;
    vals.push(`(${i}, ${x}, ${y}, ${ts})`);
  }
  return [
    'CREATE TABLE bb (id int, x float8, y int, ts timestamp)',
    `INSERT INTO bb VALUES ${vals.join(', ')}`,
    // Ascending in id: ORDER BY DESC sees every block beat the boundary.
    'CREATE TABLE asc_t AS SELECT i AS id, i::float8 / 3 AS x, i AS y FROM generate_series(1, 30000) i',
    'CREATE TABLE small (id int, x float8, y int)',
    ...Array.from({ length: 60 }, (_, k) => `INSERT INTO small SELECT i, ((i * 7919) % 1009)::float8 / 2, (i * 31) % 977 FROM generate_series(${k * 100 + 1}, ${k * 100 + 100}) i`),
  ];
}

const QUERIES: string[] = [];
for (const col of ['x', 'y', 'ts']) {
  for (const dir of ['', ' DESC', ' NULLS FIRST', ' DESC NULLS LAST']) {
    for (const k of [1, 10, 100, 1000]) QUERIES.push(`SELECT id, ${col} FROM bb ORDER BY ${col}${dir}, id LIMIT ${k}`);
    QUERIES.push(`SELECT id, ${col} FROM bb ORDER BY ${col}${dir}, id LIMIT 20 OFFSET 300`);
    // Tied rows may leave in any order (-0 ties with 0): compared as a sorted list of texts.
    QUERIES.push(`SELECT c::text AS c FROM (SELECT ${col} AS c FROM bb ORDER BY ${col}${dir} FETCH FIRST 50 ROWS WITH TIES) s ORDER BY 1`);
  }
}
for (const t of ['asc_t', 'small']) {
  for (const dir of ['', ' DESC']) {
    QUERIES.push(`SELECT id, x FROM ${t} ORDER BY x${dir}, id LIMIT 100`);
    QUERIES.push(`SELECT id, y FROM ${t} ORDER BY y${dir}, id LIMIT 7`);
    QUERIES.push(`SELECT y FROM ${t} ORDER BY y${dir} FETCH FIRST 30 ROWS WITH TIES`);
  }
}
// Filters and computed keys make operator columns, which have no bounds: the plain prefilter runs.
QUERIES.push('SELECT id, x FROM bb WHERE id % 3 = 0 ORDER BY x DESC, id LIMIT 40');
QUERIES.push('SELECT id, x + 1 FROM bb ORDER BY x + 1 DESC NULLS LAST, id LIMIT 40');

describe('Top-N over stored columns with block bounds vs PostgreSQL', () => {
  const { agree } = agreementSuite(setupSql);
  it(`${QUERIES.length} Top-N queries agree`, async () => {
    await agree(QUERIES);
  }, 300_000);
});

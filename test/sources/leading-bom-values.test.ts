/**
 * A value whose text starts with U+FEFF keeps it: it is data, not a byte order mark (PostgreSQL and
 * DuckDB keep it). A default TextDecoder drops a leading U+FEFF from every string it decodes, which the
 * file readers did per value: such rows read without it, compared unequal to themselves, and a row group
 * whose greatest value starts with it was pruned by the shortened bound (a LIKE lost thousands of rows).
 * Parquet (DuckDB's file: dictionary pages, PLAIN pages, statistics; hyparquet's general path through a
 * list column beside), NDJSON (the byte scanner and the general path), COPY FROM text escapes, and
 * Arrow Utf8 / LargeUtf8 columns (apache-arrow's own decoder drops the mark too).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { duckdbParquetFixture, normRows } from './duckdb-parquet-fixture.js';

const BOM = '\uFEFF';

// Every 7th value starts with the mark; in the first row group (122,880 rows) the greatest values
// start with it (U+FEFF sorts above every ASCII and Latin letter), so its statistics' max starts so.
const fx = duckdbParquetFixture(
  'leading-bom',
  `SELECT i::INTEGER AS id,
          CASE WHEN i % 7 = 3 THEN '${BOM}' || 'x' || (i % 1000) ELSE 'x' || (i % 1000) END AS d,
          CASE WHEN i % 7 = 3 THEN '${BOM}' || 'u' || i ELSE 'u' || i END AS u,
          CASE WHEN i % 5 = 0 THEN NULL ELSE [('${BOM}' || 'l' || (i % 3))] END AS l
   FROM range(250000) t(i)`,
);

describe('values starting with U+FEFF', () => {
  it('Parquet: read, compared, filtered and pruned with the mark kept, as DuckDB does', async () => {
    const queries = [
      `SELECT count(*), count(*) FILTER (WHERE starts_with(d, '${BOM}')), count(*) FILTER (WHERE starts_with(u, '${BOM}')) FROM read_parquet('$F')`,
      `SELECT count(*) FROM read_parquet('$F') WHERE u LIKE '${BOM}u1%'`,
      `SELECT count(*) FROM read_parquet('$F') WHERE u LIKE 'u1%'`,
      `SELECT count(*) FROM read_parquet('$F') WHERE u = '${BOM}u10'`,
      `SELECT count(*) FROM read_parquet('$F') WHERE u = 'u10'`,
      `SELECT count(*) FROM read_parquet('$F') WHERE u >= '${BOM}'`,
      `SELECT count(*) FROM read_parquet('$F') WHERE d = '${BOM}x3'`,
      `SELECT count(*) FROM read_parquet('$F') WHERE d LIKE '%3' AND d NOT LIKE 'x%'`,
      // DuckDB's client drops a leading U+FEFF from the strings it returns: values are compared as
      // their lengths and first code points.
      `SELECT length(max(u)), ascii(max(u)), length(min(u)), length(max(d)), ascii(max(d)) FROM read_parquet('$F') WHERE id < 1000`,
      `SELECT id, length(u), ascii(u), length(d), ascii(d), u = '${BOM}' || 'u' || id FROM read_parquet('$F') WHERE id BETWEEN 100 AND 120 ORDER BY id`,
    ];
    for (const q of queries) await fx.sameAsDuckDbAndUnpushed(q);
    // The mark reaches the client.
    const r = await fx.quire(`SELECT u FROM read_parquet('${fx.file}') WHERE id = 3`);
    expect(r).toEqual([[`${BOM}u3`]]);
  });

  it('Parquet, general path (a list column): its strings keep the mark', async () => {
    const q = `SELECT count(l), count(*) FILTER (WHERE starts_with(l[1], '${BOM}')), sum(length(l[1])) FROM read_parquet('${fx.file}')`;
    const got = await fx.quire(q);
    expect(got).toEqual(await fx.duckdb(q));
    expect(got[0]![0]).toBe(got[0]![1]);
  });

  it('NDJSON: string values keep the mark, on the byte scanner and the general path', async () => {
    const file = join(fx.dir, 'bom.ndjson');
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++) lines.push(JSON.stringify({ id: i, s: i % 7 === 3 ? `${BOM}s${i % 10}` : `s${i % 10}`, t: `${BOM}é${i}` }));
    writeFileSync(file, lines.join('\n') + '\n');
    for (const q of [
      `SELECT count(*) FILTER (WHERE starts_with(s, '${BOM}')), count(*) FILTER (WHERE starts_with(t, '${BOM}')), count(DISTINCT s) FROM read_json('${file}')`,
      `SELECT id, length(s), ascii(s), length(t), ascii(t) FROM read_json('${file}') WHERE id IN (3, 4, 10) ORDER BY id`,
    ]) {
      expect(await fx.quire(q), q).toEqual(normRows(await fx.duckdb(q.replace('read_json(', 'read_json_auto('))));
    }
    expect(await fx.quire(`SELECT s, t FROM read_json('${file}') WHERE id = 10`)).toEqual([[`${BOM}s0`, `${BOM}é10`]]);
  });

  it('COPY FROM text: an escaped U+FEFF at a field start stays', async () => {
    const file = join(fx.dir, 'bom.txt');
    writeFileSync(file, '\\xef\\xbb\\xbfa\tb\n\\xEF\\xBB\\xBF\t\\xef\\xbb\\xbf\\xef\\xbb\\xbfc\n');
    await fx.db.query('CREATE TABLE bomcopy (a text, b text)');
    await fx.db.query(`COPY bomcopy FROM '${file}'`);
    const r = await fx.quire(`SELECT a, b, length(a), length(b) FROM bomcopy ORDER BY 3 DESC`);
    expect(r).toEqual([
      [`${BOM}a`, 'b', 2, 1],
      [BOM, `${BOM}${BOM}c`, 1, 3],
    ]);
  });
});

describe('values starting with U+FEFF, Arrow', () => {
  it('read_arrow and registerArrow keep the mark of Utf8 and LargeUtf8 values, over several record batches and a slice', async () => {
    const arrow = await import('apache-arrow');
    const { Database } = await import('../../src/index.js');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'quire-arrow-bom-'));
    try {
      const values = Array.from({ length: 5000 }, (_, i) => (i % 9 === 4 ? null : i % 7 === 3 ? `${BOM}v${i}` : `v${i}`));
      const a = arrow.vectorFromArray(values, new arrow.Utf8());
      const large = arrow.vectorFromArray(values, new arrow.LargeUtf8());
      const table = new arrow.Table({ a, large });
      // Two record batches, the second a slice of the data starting mid-way.
      const file = join(dir, 'bom.arrow');
      const batches = [...table.slice(0, 2000).batches, ...table.slice(2000).batches];
      writeFileSync(file, arrow.tableToIPC(new arrow.Table(batches), 'file'));
      const db = await Database.create();
      db.registerArrow('reg', table.slice(1000));
      const expected = (from: number): unknown[] => {
        const kept = values.slice(from).filter((v) => v !== null) as string[];
        return [kept.length, kept.filter((v) => v.startsWith(BOM)).length, kept.reduce((n, v) => n + v.length, 0)];
      };
      for (const [src, from] of [[`read_arrow('${file}')`, 0], ['reg', 1000]] as const) {
        for (const col of ['a', 'large']) {
          const r = await db.query(`SELECT count(${col}), count(*) FILTER (WHERE starts_with(${col}, '${BOM}')), sum(length(${col})) FROM ${src}`);
          expect(normRows(r.rows as unknown[][])[0], `${src} ${col}`).toEqual(expected(from));
        }
      }
      const one = await db.query(`SELECT a, large FROM read_arrow('${file}') WHERE a = '${BOM}v3'`);
      expect(one.rows).toEqual([[`${BOM}v3`, `${BOM}v3`]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * Nested Parquet columns: lists read as arrays of their element's type, groups (DuckDB's STRUCTs) as
 * records with the file's field names, maps and lists of lists as their JSON text. Values are compared
 * with DuckDB's reading of the same file through to_json (both write `{"a":1}` and `[1,null]`), element
 * access and unnest; NULL lists, empty lists and NULL elements, NULL groups and groups of NULLs, several
 * row groups, a glob of two files, COPY FROM into array columns; and the schema shapes DuckDB does not
 * write (two-level lists, repeated fields outside a LIST, maps inside groups) on the mapping itself.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SchemaElement, SchemaTree } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { T, type DataType } from '../../src/common/types.js';
import type { RecordValue } from '../../src/common/record-value.js';
import { nestedMapping } from '../../src/storage/table-functions/parquet-nested.js';
import { duckdbParquetFixture, normRows } from './duckdb-parquet-fixture.js';

const N = 3000;
const f = duckdbParquetFixture(
  'nested',
  `SELECT i::INTEGER AS id,
     CASE WHEN i % 5 = 0 THEN NULL WHEN i % 5 = 1 THEN []::INTEGER[] WHEN i % 5 = 2 THEN [i, NULL, i * 2]::INTEGER[] ELSE [i, i + 1]::INTEGER[] END AS l,
     CASE WHEN i % 7 = 0 THEN NULL
          WHEN i % 7 = 1 THEN {'a': NULL::BIGINT, 'b': NULL::VARCHAR, 'c': NULL::DECIMAL(4,1)[]}
          ELSE {'a': i::BIGINT * 1000000000, 'b': 'x"' || i || 'é', 'c': [i / 10, NULL]::DECIMAL(4,1)[]} END AS s,
     ['t' || (i % 3), NULL, ''] AS lt,
     [{'p': i, 'q': i % 2 = 0}, NULL] AS ls,
     MAP {'k': i} AS m,
     [[i, i], [i]] AS ll,
     [DATE '2020-01-01' + (i % 400)::INTEGER] AS ld,
     {'inner': {'v': i % 4, 'w': [1.5::DOUBLE, i::DOUBLE]}} AS deep
   FROM range(${N}) t(i)`,
  'ROW_GROUP_SIZE 1000',
);

describe('read_parquet: nested columns', () => {
  it('maps lists to arrays and groups to records, maps and lists of lists to JSON text', async () => {
    const r = await f.db.query(`SELECT l, s, lt, ls, m, ll, ld, deep FROM read_parquet('${f.file}') LIMIT 1`);
    expect(r.columns.map((c) => c.type.name)).toEqual(['_int4', 'record', '_text', '_record', 'text', 'text', '_date', 'record']);
    const types = await f.quire(`SELECT pg_typeof(l)::text, pg_typeof(s)::text, pg_typeof(lt)::text, pg_typeof(ld)::text FROM read_parquet('${f.file}') LIMIT 1`);
    expect(types).toEqual([['integer[]', 'record', 'text[]', 'date[]']]);
  });

  it('every value equals DuckDB’s, through to_json', async () => {
    // deep holds doubles, which DuckDB's JSON writes as 2998.0 and PostgreSQL's as 2998: compared by element below.
    const cols = ['l', 's', 'lt', 'ls'];
    const q = await f.quire(`SELECT id, ${cols.map((c) => `to_json(${c})::text`).join(', ')}, m, ll FROM read_parquet('${f.file}') ORDER BY id`);
    const d = await f.duckdb(`SELECT id, ${cols.map((c) => `to_json(${c})::VARCHAR`).join(', ')}, to_json(m)::VARCHAR, to_json(ll)::VARCHAR FROM read_parquet('${f.file}') ORDER BY id`);
    expect(q.length).toBe(N);
    expect(q).toEqual(d);
  });

  it('element access, field selection and lengths', async () => {
    const q = await f.quire(`SELECT id, l[1], l[2], l[3], cardinality(l), (s).a, (s).b, (s).c[1]::text, (s).c[2], ls[2] IS NULL, lt[1], lt[3],
        ld[1]::text, ((deep).inner).v, ((deep).inner).w[2]
      FROM read_parquet('${f.file}') WHERE id % 11 < 4 ORDER BY id`);
    const d = await f.duckdb(`SELECT id, l[1], l[2], l[3], len(l), s.a, s.b, s.c[1]::VARCHAR, s.c[2], ls[2] IS NULL, lt[1], lt[3],
        ld[1]::VARCHAR, deep.inner.v, deep.inner.w[2]
      FROM read_parquet('${f.file}') WHERE id % 11 < 4 ORDER BY id`);
    expect(q.length).toBeGreaterThan(1000);
    expect(q).toEqual(normRows(d));
    // A list of groups (checked on its own: DuckDB's ls[1].p under this filter disagrees with its own to_json of ls).
    expect(await f.quire(`SELECT count(*) FILTER (WHERE (ls[1]).p = id AND (ls[1]).q = (id % 2 = 0)), count(*) FROM read_parquet('${f.file}')`)).toEqual([[N, N]]);
  });

  it('NULL lists and groups differ from empty ones and from groups of NULLs', async () => {
    const q = await f.quire(`SELECT count(*) FILTER (WHERE l IS NULL), count(*) FILTER (WHERE cardinality(l) = 0), count(l),
        count(*) FILTER (WHERE (s).a IS NULL AND (s).b IS NULL) FROM read_parquet('${f.file}')`);
    const d = await f.duckdb(`SELECT count(*) FILTER (WHERE l IS NULL), count(*) FILTER (WHERE len(l) = 0), count(l),
        count(*) FILTER (WHERE s.a IS NULL AND s.b IS NULL) FROM read_parquet('${f.file}')`);
    expect(q).toEqual(normRows(d));
    // PostgreSQL's row IS NULL is true for the NULL group and for a group whose fields are all NULL;
    // IS NOT NULL only when no field is NULL. count(s) counts every group that is not itself NULL.
    const pgNull = await f.quire(`SELECT count(*) FILTER (WHERE s IS NULL), count(*) FILTER (WHERE s IS NOT NULL), count(s) FROM read_parquet('${f.file}')`);
    const duckNull = await f.duckdb(`SELECT count(*) FILTER (WHERE s IS NULL OR (s.a IS NULL AND s.b IS NULL AND s.c IS NULL)),
        count(*) FILTER (WHERE s.a IS NOT NULL AND s.b IS NOT NULL AND s.c IS NOT NULL), count(s) FROM read_parquet('${f.file}')`);
    expect(pgNull).toEqual(normRows(duckNull));
  });

  it('unnest, GROUP BY on a record and on an array', async () => {
    const q = await f.quire(`SELECT sum(x), count(x), count(*) FROM (SELECT unnest(l) AS x FROM read_parquet('${f.file}')) u`);
    const d = await f.duckdb(`SELECT sum(x)::BIGINT, count(x), count(*) FROM (SELECT unnest(l) AS x FROM read_parquet('${f.file}')) u`);
    expect(normRows(q)).toEqual(normRows(d));
    const g = await f.quire(`SELECT count(*) FROM (SELECT deep, count(*) FROM read_parquet('${f.file}') GROUP BY deep) x`);
    const gd = await f.duckdb(`SELECT count(*) FROM (SELECT deep, count(*) FROM read_parquet('${f.file}') GROUP BY deep) x`);
    expect(normRows(g)).toEqual(normRows(gd));
    const ga = await f.quire(`SELECT lt, count(*) FROM read_parquet('${f.file}') GROUP BY lt ORDER BY lt`);
    expect(ga).toEqual([
      [['t0', null, ''], 1000],
      [['t1', null, ''], 1000],
      [['t2', null, ''], 1000],
    ]);
  });

  it('two files of one shape: UNION ALL and a glob read their groups as one type', async () => {
    const other = join(f.dir, 'nested-b.parquet');
    await f.duck.run(`COPY (SELECT * FROM read_parquet('${f.file}') WHERE id < 10) TO '${other}' (FORMAT parquet)`);
    const u = await f.quire(`SELECT count(DISTINCT s) FROM (SELECT s FROM read_parquet('${f.file}') UNION ALL SELECT s FROM read_parquet('${other}')) x`);
    const ud = await f.duckdb(`SELECT count(DISTINCT s) FROM (SELECT s FROM read_parquet('${f.file}') UNION ALL SELECT s FROM read_parquet('${other}')) x`);
    expect(normRows(u)).toEqual(normRows(ud));
    const g = await f.quire(`SELECT count(*), count(DISTINCT ls) FROM read_parquet('${join(f.dir, 'nested*.parquet')}')`);
    const gd = await f.duckdb(`SELECT count(*), count(DISTINCT ls) FROM read_parquet('${join(f.dir, 'nested*.parquet')}')`);
    expect(normRows(g)).toEqual(normRows(gd));
  });

  it('COPY FROM and INSERT … SELECT into array columns', async () => {
    const small = join(f.dir, 'lists.parquet');
    await f.duck.run(`COPY (SELECT id, l, lt FROM read_parquet('${f.file}') WHERE id < 50) TO '${small}' (FORMAT parquet)`);
    await f.db.query(`CREATE TABLE arr (id int, l int[], lt text[])`);
    await f.db.query(`COPY arr FROM '${small}' (FORMAT parquet)`);
    await f.db.query(`INSERT INTO arr SELECT id + 1000, l, lt FROM read_parquet('${small}')`);
    const q = await f.quire(`SELECT count(*), sum(cardinality(l)), count(l), min(lt[1]) FROM arr`);
    const d = await f.duckdb(`SELECT count(*) * 2, sum(len(l)) * 2, count(l) * 2, min(lt[1]) FROM read_parquet('${small}')`);
    expect(normRows(q)).toEqual(normRows(d));
    expect(await f.quire(`SELECT l, lt FROM arr WHERE id = 1002`)).toEqual([[[2, null, 4], ['t2', null, '']]]);
  });

  it('a two-level list, a repeated field outside a LIST, a map inside a group (schema shapes DuckDB does not write)', () => {
    const leaf = (name: string, type: SchemaElement['type'], repetition: SchemaElement['repetition_type'], extra: Partial<SchemaElement> = {}): SchemaTree => ({
      element: { name, type, repetition_type: repetition, ...extra },
      children: [],
      count: 1,
      path: [name],
    });
    const group = (name: string, repetition: SchemaElement['repetition_type'], children: SchemaTree[], extra: Partial<SchemaElement> = {}): SchemaTree => ({
      element: { name, repetition_type: repetition, num_children: children.length, ...extra },
      children,
      count: 1 + children.reduce((n, c) => n + c.count, 0),
      path: [name],
    });
    const leafType = (e: SchemaElement): DataType => (e.type === 'INT32' ? T.int4 : e.type === 'INT64' ? T.int8 : T.text);
    // Two-level list: the repeated leaf is the element.
    const two = nestedMapping(group('two', 'OPTIONAL', [leaf('array', 'BYTE_ARRAY', 'REPEATED')], { converted_type: 'LIST' }), leafType)!;
    expect(two.type.name).toBe('_text');
    expect(two.convert(['a', null, 'b'])).toEqual(['a', null, 'b']);
    // A repeated leaf with no LIST around it.
    const rep = nestedMapping(leaf('r', 'INT64', 'REPEATED'), leafType)!;
    expect(rep.type.name).toBe('_int8');
    expect(rep.convert([1n, 9007199254740993n])).toEqual([1, 9007199254740993n]);
    expect(nestedMapping(leaf('plain', 'INT32', 'OPTIONAL'), leafType)).toBeNull();
    // A group holding a map and a repeated group: the map as JSON text, the repeated group as an array of records.
    const g = nestedMapping(
      group('g', 'OPTIONAL', [
        group('m', 'OPTIONAL', [group('key_value', 'REPEATED', [leaf('key', 'BYTE_ARRAY', 'REQUIRED'), leaf('value', 'INT64', 'OPTIONAL')])], { converted_type: 'MAP' }),
        group('pts', 'REPEATED', [leaf('x', 'INT32', 'REQUIRED'), leaf('y', 'INT32', 'REQUIRED')]),
      ]),
      leafType,
    )!;
    expect(g.type.name).toBe('record');
    expect(g.type.composite!.fields.map((x) => [x.name, x.type.name])).toEqual([
      ['m', 'text'],
      ['pts', '_record'],
    ]);
    const v = g.convert({ m: { k: 12345678901234567890n }, pts: [{ x: 1, y: 2 }, null] }) as RecordValue;
    expect(v.fields[0]).toBe('{"k":"12345678901234567890"}');
    expect((v.fields[1] as RecordValue[])[0]!.fields).toEqual([1, 2]);
    expect((v.fields[1] as unknown[])[1]).toBeNull();
    // Records of one shape share one type, so columns of two files compare as one.
    const again = nestedMapping(group('g2', 'OPTIONAL', g.type.composite!.fields.length === 2 ? [
      group('m', 'OPTIONAL', [group('key_value', 'REPEATED', [leaf('key', 'BYTE_ARRAY', 'REQUIRED'), leaf('value', 'INT64', 'OPTIONAL')])], { converted_type: 'MAP' }),
      group('pts', 'REPEATED', [leaf('x', 'INT32', 'REQUIRED'), leaf('y', 'INT32', 'REQUIRED')]),
    ] : []), leafType)!;
    expect(again.type).toBe(g.type);
  });

  it('a database directory keeps record and array columns: from the log alone, and after a checkpoint', async () => {
    const dir = join(f.dir, 'db');
    const db = await Database.create({ path: dir });
    const queries = [
      `SELECT id, l, s, ls, lt, deep, m FROM kept ORDER BY id`,
      `SELECT id, to_json(s)::text, (s).c[1], ((deep).inner).w[2], (ls[1]).p FROM kept WHERE (s).a > 5000000000 ORDER BY id LIMIT 5`,
      `SELECT count(*), count(DISTINCT s) FROM (SELECT s FROM kept UNION ALL SELECT s FROM read_parquet('${f.file}')) x`,
    ];
    try {
      await db.query(`CREATE TABLE kept AS SELECT id, l, s, ls, lt, deep, m FROM read_parquet('${f.file}') WHERE id < 40`);
      await db.query(`INSERT INTO kept SELECT id, l, s, ls, lt, deep, m FROM read_parquet('${f.file}') WHERE id BETWEEN 40 AND 49`);
      await db.query(`UPDATE kept SET s = NULL WHERE id = 3`);
      const want = await Promise.all(queries.map(async (q) => normRows((await db.query(q)).rows)));
      expect(want[0]!.length).toBe(50);
      expect(want[1]!.length).toBe(5);
      // Nothing checkpointed yet: a read-only open replays the log.
      const reader = await Database.create({ path: dir, readOnly: true });
      for (let k = 0; k < queries.length; k++) expect(normRows((await reader.query(queries[k]!)).rows), queries[k]).toEqual(want[k]);
      await reader.close();
      await db.close();
      const again = await Database.create({ path: dir });
      try {
        for (let k = 0; k < queries.length; k++) expect(normRows((await again.query(queries[k]!)).rows), queries[k]).toEqual(want[k]);
        expect((await again.query(`SELECT s FROM kept WHERE id = 3`)).rows).toEqual([[null]]);
      } finally {
        await again.close();
      }
    } catch (e) {
      await db.close().catch(() => undefined);
      throw e;
    }
  });

  it('COPY TO parquet writes arrays as LISTs and records as groups: DuckDB and Quire read back the same values', async () => {
    const out = join(f.dir, 'copied.parquet');
    await f.db.query(`CREATE TYPE np_pair AS (x int, y text)`);
    await f.db.query(`COPY (SELECT id, l, s, ls, lt, deep, ROW(id, 'p' || id)::np_pair AS pair, ARRAY[ROW(id, NULL)::np_pair] AS pairs, ld
                          FROM read_parquet('${f.file}') WHERE id < 300) TO '${out}' (FORMAT parquet)`);
    // s holds numeric(4,1)[]: numeric goes out as its exact text (as a flat numeric column does), so s is compared by field.
    const cols = ['l', 'ls', 'lt'];
    const q = await f.duckdb(`SELECT id, ${cols.map((c) => `to_json(${c})::VARCHAR`).join(', ')}, to_json(pair)::VARCHAR, to_json(pairs)::VARCHAR, deep.inner.v, ld[1]::VARCHAR, s.a, s.b, s.c[1]::DECIMAL(4,1) FROM read_parquet('${out}') ORDER BY id`);
    const d = await f.duckdb(`SELECT id, ${cols.map((c) => `to_json(${c})::VARCHAR`).join(', ')}, to_json({'x': id::INTEGER, 'y': 'p' || id})::VARCHAR, to_json([{'x': id::INTEGER, 'y': NULL::VARCHAR}])::VARCHAR, deep.inner.v, ld[1]::VARCHAR, s.a, s.b, s.c[1] FROM read_parquet('${f.file}') WHERE id < 300 ORDER BY id`);
    expect(q.length).toBe(300);
    expect(q).toEqual(d);
    const back = await f.quire(`SELECT count(*) FROM read_parquet('${out}') o JOIN read_parquet('${f.file}') i USING (id) WHERE o.l IS NOT DISTINCT FROM i.l AND (o.s).b IS NOT DISTINCT FROM (i.s).b AND o.lt = i.lt AND o.deep = i.deep AND (o.pair).y = 'p' || id`);
    expect(back).toEqual([[300]]);
  });

  it('COPY TO json writes arrays and named records as JSON values', async () => {
    const out = join(f.dir, 'copied.ndjson');
    await f.db.query(`COPY (SELECT id, l, s FROM read_parquet('${f.file}') WHERE id BETWEEN 2 AND 3 ORDER BY id) TO '${out}' (FORMAT 'json')`);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toEqual([
      '{"id":2,"l":[2,null,4],"s":{"a":2000000000,"b":"x\\"2é","c":[0.2,null]}}',
      '{"id":3,"l":[3,4],"s":{"a":3000000000,"b":"x\\"3é","c":[0.3,null]}}',
    ]);
  });
});

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatValue } from '../../src/common/format-value.js';
import { T, typeDisplayName, type Field, type Value } from '../../src/common/types.js';
import { BATCH_SIZE, batchRows, type Batch } from '../../src/common/column.js';
import type { EvalContext } from '../../src/functions/eval-context.js';
import { LineReader, expandFileGlob, splitCsvLine } from '../../src/storage/csv.js';
import { parseColumnSpec, readCsv } from '../../src/storage/table-functions/read-csv.js';
import { JsonValueSplitter, readJson } from '../../src/storage/table-functions/read-json.js';
import { newPGlite } from '../common/pglite.js';

function evalCtx(timezone = 'UTC'): EvalContext {
  return { timezone, statementTime: 0, transactionTime: 0, random: () => 0, setSeed: () => {}, setting: () => undefined };
}

let dir: string;
beforeEach(async () => {
  dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'quire-files-'));
});
afterEach(async () => {
  await fs.promises.rm(dir, { recursive: true, force: true });
});

function write(name: string, content: string | Buffer): string {
  const p = path.join(dir, name);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, content);
  return p;
}

async function run(fn: typeof readCsv, file: string, named: Record<string, Value> = {}): Promise<{ schema: Field[]; rows: Value[][]; batches: Batch[] }> {
  const b = fn.bind([T.text], [file], evalCtx(), new Map(Object.entries(named)));
  const batches: Batch[] = [];
  for await (const batch of b.execute([file], evalCtx())) batches.push(batch);
  return { schema: b.schema, rows: batches.flatMap((x) => batchRows(x)), batches };
}

function types(schema: Field[]): string[] {
  return schema.map((f) => `${f.name} ${f.type.name}`);
}

describe('read_csv', () => {
  it('infers types from a sample and reads rows', async () => {
    const f = write(
      'a.csv',
      'id,name,score,big,huge,ok,day,at,atz,mixed,zip,empty\n' +
        '1,alice,1.5,3000000000,123456789012345678901234,true,2024-01-02,2024-01-02 03:04:05,2024-01-02T03:04:05Z,1,01234,\n' +
        '2,"bob, jr",2,-1,1,f,2024-02-29,2024-02-29 00:00,2024-02-29 00:00+02,x,02134,\n' +
        '3,,,,,,,,,,,\n',
    );
    const { schema, rows } = await run(readCsv, f);
    expect(types(schema)).toEqual([
      'id int4',
      'name text',
      'score float8',
      'big int8',
      'huge numeric',
      'ok bool',
      'day date',
      'at timestamp',
      'atz timestamptz',
      'mixed text',
      'zip text',
      'empty text',
    ]);
    expect(rows.map((r) => r.map((v, i) => formatValue(v, schema[i]!.type)))).toEqual([
      ['1', 'alice', '1.5', '3000000000', '123456789012345678901234', 't', '2024-01-02', '2024-01-02 03:04:05', '2024-01-02 03:04:05+00', '1', '01234', null],
      ['2', 'bob, jr', '2', '-1', '1', 'f', '2024-02-29', '2024-02-29 00:00:00', '2024-02-28 22:00:00+00', 'x', '02134', null],
      ['3', null, null, null, null, null, null, null, null, null, null, null],
    ]);
  });

  it('matches PostgreSQL COPY FROM csv header for the inferred schema', async () => {
    const content = 'a,b,c,d\n1,"x ""q""",2.25,2020-01-01\n-7,"multi\nline",1e3,1999-12-31\n,"",,\n';
    const f = write('pg.csv', content);
    const { schema, rows } = await run(readCsv, f);
    const pg = newPGlite();
    try {
      await pg.exec(`create table t(${schema.map((s) => `"${s.name}" ${typeDisplayName(s.type)}`).join(', ')})`);
      await pg.query(`copy t from '/dev/blob' (format csv, header true)`, [], { blob: new Blob([content]) });
      const r = await pg.query<(string | null)[]>(`select ${schema.map((s) => `"${s.name}"::text`).join(', ')} from t`, [], { rowMode: 'array' });
      // read_csv reads a quoted empty field in a non-text column as NULL, COPY would reject it; here it is text.
      expect(rows.map((row) => row.map((v, i) => formatValue(v, schema[i]!.type)))).toEqual(r.rows);
    } finally {
      await pg.close();
    }
  });

  it('honours named options', async () => {
    const f = write('b.txt', "skip me\n1;'a;b';NA\n2;'it''s';3\n");
    const { schema, rows } = await run(readCsv, f, { header: false, delim: ';', quote: "'", nullstr: 'NA', skip: 1 });
    expect(types(schema)).toEqual(['column1 int4', 'column2 text', 'column3 int4']);
    expect(rows).toEqual([
      [1, 'a;b', null],
      [2, "it's", 3],
    ]);
    const typed = await run(readCsv, f, { header: false, delim: ';', quote: "'", nullstr: 'NA', skip: 1, columns: 'n bigint, "Label" varchar(10), x numeric(5,1)' });
    expect(typed.schema.map((s) => [s.name, typeDisplayName(s.type)])).toEqual([
      ['n', 'bigint'],
      ['Label', 'character varying(10)'],
      ['x', 'numeric(5,1)'],
    ]);
    expect(typed.rows.map((r) => r.map((v, i) => formatValue(v, typed.schema[i]!.type)))).toEqual([
      ['1', 'a;b', null],
      ['2', "it's", '3.0'],
    ]);
    const all = await run(readCsv, f, { header: false, delim: ';', quote: "'", skip: 1, all_varchar: true });
    expect(all.schema.every((s) => s.type === T.text)).toBe(true);
  });

  it('reads a glob of files in name order, streaming in batches, with CRLF and a BOM', async () => {
    const lines = (from: number, to: number): string => {
      let s = '';
      for (let i = from; i < to; i++) s += `${i},v${i}\r\n`;
      return s;
    };
    write('parts/p1.csv', '\ufeffk,v\r\n' + lines(0, 5000));
    write('parts/p2.csv', 'k,v\r\n' + lines(5000, 9000));
    write('parts/skip.txt', 'k,v\r\nnope,nope\r\n');
    const { schema, rows, batches } = await run(readCsv, path.join(dir, 'parts/*.csv'));
    expect(types(schema)).toEqual(['k int4', 'v text']);
    expect(rows.length).toBe(9000);
    expect(rows[8999]).toEqual([8999, 'v8999']);
    expect(Math.max(...batches.map((b) => b.length))).toBeLessThanOrEqual(BATCH_SIZE);
    expect(expandFileGlob(path.join(dir, '**/p?.csv')).map((p) => path.basename(p))).toEqual(['p1.csv', 'p2.csv']);
    expect(expandFileGlob(path.join(dir, 'parts/p{2,1}.csv')).map((p) => path.basename(p))).toEqual(['p1.csv', 'p2.csv']);
  });

  it('reports values that do not fit the inferred type with context', async () => {
    let s = 'n\n';
    for (let i = 0; i < 30000; i++) s += `${i}\n`;
    s += 'oops\n';
    const f = write('late.csv', s);
    await expect(run(readCsv, f)).rejects.toMatchObject({
      code: '22P02',
      message: 'invalid input syntax for type integer: "oops"',
      detail: `read_csv "${f}", line 30002, column n: "oops"`,
    });
    const g = write('ragged.csv', 'a,b\n1,2\n3\n');
    await expect(run(readCsv, g)).rejects.toMatchObject({ code: '22P04', message: 'missing data for column "b"' });
    const h = write('extra.csv', 'a,b\n1,2,3\n');
    await expect(run(readCsv, h)).rejects.toMatchObject({ code: '22P04', message: 'extra data after last expected column' });
    const q = write('quote.csv', 'a\n"open\n');
    await expect(run(readCsv, q)).rejects.toMatchObject({ code: '22P04', message: 'unterminated CSV quoted field' });
  });

  it('missing files and bad options', async () => {
    const missing = path.join(dir, 'nope.csv');
    expect(() => readCsv.bind([T.text], [missing], evalCtx(), new Map())).toThrow(
      expect.objectContaining({ code: '58P01', message: `could not open file "${missing}" for reading: No such file or directory` }),
    );
    expect(() => readCsv.bind([T.text], [path.join(dir, '*.csv')], evalCtx(), new Map())).toThrow(expect.objectContaining({ code: '58P01' }));
    const f = write('x.csv', 'a\n1\n');
    expect(() => readCsv.bind([T.text], [f], evalCtx(), new Map([['bogus', 1]]))).toThrow(expect.objectContaining({ code: '22023' }));
    expect(() => readCsv.bind([T.text], [f], evalCtx(), new Map([['delim', ',,']]))).toThrow(expect.objectContaining({ code: '22023' }));
    expect(() => readCsv.bind([T.text], [undefined], evalCtx(), new Map())).toThrow(expect.objectContaining({ code: '22023' }));
    expect(() => parseColumnSpec('a nosuchtype')).toThrow(expect.objectContaining({ code: '42704' }));
  });

  it('dedupes and fills header names', async () => {
    const f = write('h.csv', 'a,a,,b\n1,2,3,4\n');
    const { schema } = await run(readCsv, f);
    expect(schema.map((s) => s.name)).toEqual(['a', 'a_1', 'column3', 'b']);
  });
});

describe('read_json', () => {
  it('reads NDJSON with a key union in first-appearance order', async () => {
    const f = write(
      'a.ndjson',
      '{"id": 1, "name": "a", "tags": [1, 2], "ok": true}\n' +
        '\n' +
        '{"id": 2, "score": 1.5, "meta": {"x": {"y": null}}, "name": null, "when": "2024-01-01"}\n' +
        '{"id": 3, "score": 2, "ok": false, "name": "c \\"q\\" \\u00e9"}\n',
    );
    const { schema, rows } = await run(readJson, f);
    expect(types(schema)).toEqual(['id int8', 'name text', 'tags text', 'ok bool', 'score float8', 'meta text', 'when text']);
    expect(rows).toEqual([
      [1, 'a', '[1,2]', true, null, null, null],
      [2, null, null, null, 1.5, '{"x":{"y":null}}', '2024-01-01'],
      [3, 'c "q" é', null, false, 2, null, null],
    ]);
  });

  it('reads a top-level array, pretty-printed, across many chunks', async () => {
    const items = Array.from({ length: 20000 }, (_, i) => ({ i, s: `v${i}`, mixed: i % 2 === 0 ? i : 'odd' }));
    const f = write('arr.json', JSON.stringify(items, null, 2));
    const { schema, rows, batches } = await run(readJson, f);
    expect(types(schema)).toEqual(['i int8', 's text', 'mixed text']);
    expect(rows.length).toBe(20000);
    expect(rows[19999]).toEqual([19999, 'v19999', 'odd']);
    expect(rows[2]).toEqual([2, 'v2', '2']);
    expect(batches.length).toBeGreaterThan(1);
  });

  it('errors', async () => {
    const missing = path.join(dir, 'nope.json');
    expect(() => readJson.bind([T.text], [missing], evalCtx(), new Map())).toThrow(
      expect.objectContaining({ code: '58P01', message: `could not open file "${missing}" for reading: No such file or directory` }),
    );
    const bad = write('bad.ndjson', '{"a": 1}\n{"a": 2,}\n');
    await expect(run(readJson, bad)).rejects.toMatchObject({ code: '22P02' });
    const notObj = write('n.ndjson', '{"a": 1}\n5\n');
    await expect(run(readJson, notObj)).rejects.toMatchObject({ code: '22P02', message: 'read_json expects JSON objects' });
    const typed = write('t.ndjson', '{"a": 1}\n'.repeat(3) + '{"a": "x"}\n');
    // Beyond the inferred type: the sample saw the whole file here, so the column is text.
    expect(types((await run(readJson, typed)).schema)).toEqual(['a text']);
  });

  it('splits values incrementally', () => {
    const sp = new JsonValueSplitter();
    const out: string[] = [];
    const doc = '[{"a": "]},"}, [1, {"b": 2}], "s", 3 , true]';
    for (const ch of doc) {
      sp.push(ch);
      for (let v = sp.next(false); v !== null; v = sp.next(false)) out.push(v);
    }
    for (let v = sp.next(true); v !== null; v = sp.next(true)) out.push(v);
    expect(out.map((s) => JSON.parse(s))).toEqual([{ a: ']},' }, [1, { b: 2 }], 's', 3, true]);
  });
});

describe('csv primitives', () => {
  it('LineReader (lenient) accepts mixed newlines and keeps quoted ones', () => {
    const r = new LineReader({ mode: 'csv', strict: false });
    r.push('a\r\nb\rc\n"d\r\ne"\nf');
    r.finish();
    const lines: string[] = [];
    for (let l = r.next(); l !== null; l = r.next()) lines.push(l);
    expect(lines).toEqual(['a', 'b', 'c', '"d\r\ne"', 'f']);
    expect(r.done).toBe(true);
  });
  it('splitCsvLine', () => {
    const out: (string | null)[] = [];
    const q: number[] = [];
    const d = { delimiter: ',', quote: '"', escape: '"', nullString: '' };
    expect(splitCsvLine('a,,"",x"y,z"w', d, out, q)).toBe(4);
    expect(out.slice(0, 4)).toEqual(['a', null, '', 'xy,zw']);
    expect(q.slice(0, 4)).toEqual([0, 0, 1, 1]);
  });
});


import type { PGlite } from '@electric-sql/pglite';
import { loadModule, parseSync } from 'libpg-query';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatValue } from '../../src/common/format-value.js';
import { T, type DataType, type Field } from '../../src/common/types.js';
import { batchRows, type Batch } from '../../src/common/column.js';
import { decodeCopy, deEscapeText, encodeCopyToString, limitPrintout, parseCopyOptions, type CopyOptions } from '../../src/storage/copy-format.js';
import { rng } from '../common/pg-helper.js';
import { newPGlite } from '../common/pglite.js';

let pg: PGlite;
beforeAll(async () => {
  await loadModule();
  pg = newPGlite();
  await pg.query("set timezone='UTC'");
  await pg.exec(`
    create table u(a text);
    create table t(a text, b text);
    create table n(a int4, b int8, c numeric, d float8, e bool, f date, g timestamp, h timestamptz, i interval, j varchar(3));
  `);
});
afterAll(async () => {
  await pg.close();
});

const SCHEMAS: Record<string, Field[]> = {
  u: [{ name: 'a', type: T.text }],
  t: [
    { name: 'a', type: T.text },
    { name: 'b', type: T.text },
  ],
  n: [
    { name: 'a', type: T.int4 },
    { name: 'b', type: T.int8 },
    { name: 'c', type: T.numeric },
    { name: 'd', type: T.float8 },
    { name: 'e', type: T.bool },
    { name: 'f', type: T.date },
    { name: 'g', type: T.timestamp },
    { name: 'h', type: T.timestamptz },
    { name: 'i', type: T.interval },
    { name: 'j', type: { name: 'varchar', typmod: 7 } as DataType },
  ],
};

/** The CopyStmt options of `copy <table> from|to '/dev/blob' <opts>` as libpg-query produces them. */
function optionsOf(table: string, dir: 'from' | 'to', opts: string): CopyOptions {
  const ast = parseSync(`copy ${table} ${dir} '/dev/blob' ${opts}`) as { stmts: { stmt: { CopyStmt: { options?: unknown[] } } }[] };
  return parseCopyOptions(ast.stmts[0]!.stmt.CopyStmt.options ?? [], dir === 'from');
}

interface Outcome {
  rows?: (string | null)[][];
  code?: string;
  message?: string;
  detail?: string;
  hint?: string;
}

async function pgFrom(table: string, opts: string, data: string): Promise<Outcome> {
  await pg.exec(`truncate ${table}`);
  try {
    await pg.query(`copy ${table} from '/dev/blob' ${opts}`, [], { blob: new Blob([data]) });
    // bool::text is 'true'; the output function (and formatValue) give 't'.
    const cols = SCHEMAS[table]!.map((f) => (f.type.name === 'bool' ? `case when ${f.name} then 't' when not ${f.name} then 'f' end` : `${f.name}::text`)).join(', ');
    const r = await pg.query<(string | null)[]>(`select ${cols} from ${table}`, [], { rowMode: 'array' });
    return { rows: r.rows };
  } catch (e) {
    const x = e as { code?: string; message?: string; where?: string; hint?: string };
    const o: Outcome = { code: x.code, message: x.message, detail: x.where };
    if (x.hint !== undefined) o.hint = x.hint;
    return o;
  }
}

async function collect(gen: AsyncIterable<Batch>): Promise<Batch[]> {
  const out: Batch[] = [];
  for await (const b of gen) out.push(b);
  return out;
}

function chunked(data: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < data.length; i += size) out.push(data.slice(i, i + size));
  return out;
}

async function oursFrom(table: string, opts: string, data: string, chunkSize = 0): Promise<Outcome> {
  const fields = SCHEMAS[table]!;
  try {
    const o = optionsOf(table, 'from', opts);
    const input = chunkSize > 0 ? chunked(data, chunkSize) : [data];
    const batches = await collect(decodeCopy(input, fields, o, { table, timezone: 'UTC' }));
    const rows: (string | null)[][] = [];
    for (const b of batches) for (const r of batchRows(b)) rows.push(r.map((v, i) => formatValue(v, fields[i]!.type, { timezone: 'UTC' })));
    return { rows };
  } catch (e) {
    const x = e as { code?: string; message?: string; detail?: string; hint?: string };
    const o: Outcome = { code: x.code, message: x.message, detail: x.detail };
    if (x.hint !== undefined) o.hint = x.hint;
    return o;
  }
}

const FROM_CASES: [string, string, string][] = [
  // text format
  ['u', '', 'a\n\\.\nb\n'],
  ['u', '', 'a\n\\.'],
  ['u', '', 'a\nx\\.\nb\n'],
  ['u', '', 'a\n\\.x\nb\n'],
  ['u', '', 'a\r\n\\.\r\nb\r\n'],
  ['u', '', 'a\r\n\\.\nb\r\n'],
  ['u', '', 'a\r\\.\rb\r'],
  ['u', '', '\\\\.\n'],
  ['u', '', 'a\r\nb\n'],
  ['u', '', 'a\nb\r\n'],
  ['u', '', 'a\rb\r'],
  ['u', '', 'a\rb\n'],
  ['u', '', 'a\r\nb\rc'],
  ['u', '', 'a\\\nb\n'],
  ['u', '', 'a\\\r\nb\r\n'],
  ['u', '', '\\x41\\101\\x\\q\\N\n\\N\n\n'],
  ['u', '', '\\b\\f\\n\\r\\t\\v\\1\\12\\1234\\xfg\\x7e\\8\n'],
  ['u', '', '\\xc3\\xa9\\303\\251é\n'],
  ['u', '', '\\xc3\n'],
  ['u', '', '\\xc3\\x28\n'],
  ['u', '', '\\0\n'],
  ['u', '', 'ab\\'],
  ['u', '', 'no newline at end'],
  ['u', '', ''],
  ['u', '', '\n\n'],
  ['t', '', 'a\\\tb\tc\n'],
  ['t', '', 'a\tb\tc\n'],
  ['t', '', '\n'],
  ['t', '', 'x\n'],
  ['t', '', '\\N\t\\N\n\t\n'],
  ['t', "(delimiter ',')", 'a\\,b,c\n'],
  ['t', "(delimiter ',', null 'NA')", 'NA,\\N\n'],
  ['t', "(delimiter '|', null '')", '|x\n'],
  ['t', '(header true)', 'whatever\n1\t2\n'],
  ['t', '(format text, header match)', 'a\tb\n1\t2\n'],
  ['t', '(format text, header match)', 'a\tc\n1\t2\n'],
  ['t', "(format text, header match, null 'a')", 'a\tb\n1\t2\n'],
  // csv format
  ['u', 'csv', 'a\n\\.\nb\n'],
  ['u', 'csv', 'a\n\\.'],
  ['u', 'csv', 'a\n"\\."\nb\n'],
  ['u', 'csv', 'a\rb\n'],
  ['u', 'csv', 'a\r\nb\r'],
  ['u', 'csv', '"a\nb"\r\nc\r\n'],
  ['u', 'csv', '"a\r\nb"\r\nc\r\n'],
  ['u', 'csv', '\n'],
  ['u', 'csv', '""\n'],
  ['u', 'csv', '"a""b"\n'],
  ['u', 'csv', '"x\ny\nz'],
  ['t', 'csv', 'a"b,c"d,e\n'],
  ['t', 'csv', ' "x" ,y\n'],
  ['t', 'csv', '"abc\n'],
  ['t', 'csv', 'x,"ab"c"\n'],
  ['t', 'csv', 'x,"\n1,2\n'],
  ['t', 'csv', '1,"multi\nline\nvalue"\n2,bad,extra\n'],
  ['t', 'csv', '1,"multi\nline"\n2\n'],
  ['t', 'csv', ',\n"",""\n'],
  ['t', 'csv header', 'a,b\n1,2\n'],
  ['t', "csv delimiter ';' null 'NA'", 'NA;"NA"\n'],
  ['t', "csv quote '''' ", "'a,b','c''d'\n"],
  ['t', "csv escape '\\'", '"a\\"b","c\\\\d"\n'],
  ['t', "csv escape '\\'", '"a\\xb",1\n'],
  ['t', "csv escape '\\'", '"a\\\\",1\n'],
  ['t', "csv escape '\\'", '"a\\"\nb",1\n'],
  ['t', '(format csv, force_null (b))', '1,""\n'],
  ['t', '(format csv, force_not_null (b))', '1,\n'],
  ['t', '(format csv, force_null *)', '"",""\n'],
  ['t', "(format csv, force_null *, null 'x')", '"x",x\n'],
  ['t', '(format csv, force_not_null *, force_null *)', ',""\n'],
  ['t', '(format csv, header match)', 'a,b\n1,2\n'],
  ['t', '(format csv, header match)', 'a,c\n1,2\n'],
  ['t', '(format csv, header match)', 'a\n1,2\n'],
  ['t', '(format csv, header match)', 'a,\n1,2\n'],
  ['t', '(format csv, header match)', '"a","b"\n1,2\n'],
  ['t', '(format csv, header true)', ''],
  ['t', '(format csv, header true)', '"unterminated\n1,2\n'],
  ['t', '(format csv, header true)', '"a,b\n1,2\n'],
  ['t', '(format csv, header true)', 'a,b'],
  ['t', '(format csv, on_error ignore)', '1,2,3\n'],
  ['t', "(format csv, null 'NA')", 'NA,"NA"\n'],
  ['t', "(format csv, delimiter E'\\t')", 'a\t"b\tc"\n'],
  // typed columns
  ['n', 'csv', '1,2,3.50,4.5,t,2024-02-29,2024-01-01 12:34:56.5,2024-01-01 12:00+02,1 day 2 hours,abc\n'],
  ['n', 'csv', ',,,,,,,,,\n'],
  ['n', 'csv', '1,9223372036854775807,1e3,-0,yes,infinity,-infinity,epoch,-1 mon,"ab "\n'],
  ['n', 'csv', 'x,1,1,1,t,2024-01-01,2024-01-01,2024-01-01,1 day,a\n'],
  ['n', 'csv', '1,1,1,1,t,2024-01-01,2024-01-01,2024-01-01,1 day,abcd\n'],
  ['n', 'csv', '1,1,1,1,maybe,2024-01-01,2024-01-01,2024-01-01,1 day,a\n'],
  ['n', 'csv', '1,1,1,1,t,2024-02-30,2024-01-01,2024-01-01,1 day,a\n'],
  ['n', 'csv', '99999999999,1,1,1,t,2024-01-01,2024-01-01,2024-01-01,1 day,a\n'],
  ['n', 'csv', `1,1,1,1,t,2024-01-01,2024-01-01,2024-01-01,1 day,${'é'.repeat(80)}\n`],
  ['n', '(format csv, on_error ignore)', 'x,1,1,1,t,2024-01-01,2024-01-01,2024-01-01,1 day,a\n2,1,1,1,t,2024-01-01,2024-01-01,2024-01-01,1 day,a\n'],
  ['n', '(format csv, on_error ignore, reject_limit 1)', 'x,1,1,1,t,2024-01-01,2024-01-01,2024-01-01,1 day,a\nx,1,1,1,t,2024-01-01,2024-01-01,2024-01-01,1 day,a\n'],
  ['n', '', '1\t2\t3\t4\tf\t2024-01-01\t2024-01-01 00:00:00\t2024-01-01 00:00:00+00\t00:00:01\t\\N\n'],
  ['n', '', '1\t2\t3\t4\tf\t2024-01-01\t2024-01-01 00:00:00\t2024-01-01 00:00:00+00\t00:00:01\n'],
];

describe('decodeCopy matches PostgreSQL COPY FROM', () => {
  it.each(FROM_CASES)('copy %s from %s: %j', async (table, opts, data) => {
    const want = await pgFrom(table, opts, data);
    expect(await oursFrom(table, opts, data)).toEqual(want);
    // Chunk boundaries anywhere must not change the outcome.
    for (const size of [1, 2, 3, 7]) expect(await oursFrom(table, opts, data, size)).toEqual(want);
  });

  it('random raw input gives the same rows or the same error as PostgreSQL', async () => {
    const r = rng(Number(process.env.COPY_SEED ?? 11));
    const pieces = ['a', 'b', ',', '\t', '\\', '\n', '\r', '\r\n', '"', '""', "'", ' ', 'é', '.', '\\.', '\\N', 'N', '\\x4', '\\0', '\\1'];
    const optsList = ['', 'csv', "csv escape '\\'", "(format csv, quote '''')", '(format text, header match)', "(delimiter ',')"];
    for (let k = 0; k < Number(process.env.COPY_N ?? 120); k++) {
      let data = '';
      const len = 1 + Math.floor(r() * 14);
      for (let i = 0; i < len; i++) data += pieces[Math.floor(r() * pieces.length)]!;
      const opts = optsList[k % optsList.length]!;
      const want = await pgFrom('t', opts, data);
      const got = await oursFrom('t', opts, data, 1 + (k % 4));
      expect({ opts, data, ...got }).toEqual({ opts, data, ...want });
    }
  });

  it('many rows span several batches', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 10000; i++) lines.push(`${i},"v ${i}\n""q"""`);
    const data = lines.join('\n') + '\n';
    await pg.exec('create table big(a text, b text)');
    SCHEMAS.big = SCHEMAS.t!;
    const want = await pgFrom('big', 'csv', data);
    const got = await oursFrom('big', 'csv', data, 65536);
    expect(got.rows!.length).toBe(10000);
    expect(got).toEqual(want);
  });

  it('random text-format data round-trips through PostgreSQL', async () => {
    const r = rng(7);
    const alphabet = ['a', 'b', ',', '\t', '\\', '\n', '\r', '"', "'", ' ', 'é', '.', 'N', '\b', '\x01', '😀'];
    const values: (string | null)[][] = [];
    for (let i = 0; i < 200; i++) {
      const row: (string | null)[] = [];
      for (let c = 0; c < 2; c++) {
        if (r() < 0.1) row.push(null);
        else {
          let s = '';
          const len = Math.floor(r() * 8);
          for (let k = 0; k < len; k++) s += alphabet[Math.floor(r() * alphabet.length)]!;
          row.push(s);
        }
      }
      values.push(row);
    }
    await pg.exec('truncate t');
    for (const v of values) await pg.query('insert into t values ($1, $2)', v);
    for (const opts of ['', 'csv', '(format csv, force_quote *)', "(format csv, quote '''', escape '\\', delimiter '|', null 'NULL')", "(delimiter ',', null '')", '(header)', 'csv header']) {
      const out = await pg.query(`copy t to '/dev/blob' ${opts}`);
      const pgText = await out.blob!.text();
      // Ours: decode PostgreSQL's output, encode it again; both must reproduce PostgreSQL's bytes.
      const fromOpts = opts.replace(/force_quote \*/, 'force_not_null (a)');
      const batches = await collect(decodeCopy([pgText], SCHEMAS.t!, optionsOf('t', 'from', fromOpts), { table: 't' }));
      const rows = batches.flatMap((b) => batchRows(b));
      const expectRows = fromOpts.includes('force_not_null') ? values.map((v) => [v[0] ?? '', v[1]]) : values;
      // With NULL '' in text mode, empty strings and NULLs are the same on the wire.
      if (!opts.includes("null ''")) expect(rows).toEqual(expectRows);
      const batches2 = await collect(decodeCopy([pgText], SCHEMAS.t!, optionsOf('t', 'from', opts.replace(/, force_quote \*/, '')), { table: 't' }));
      expect(await encodeCopyToString(batches2, SCHEMAS.t!, optionsOf('t', 'to', opts), { table: 't' })).toBe(pgText);
    }
  });
});

describe('encodeCopy matches PostgreSQL COPY TO', () => {
  const TO_CASES: [string, string][] = [
    ['n', ''],
    ['n', 'csv'],
    ['n', 'csv header'],
    ['n', '(format text, header)'],
    ['n', "(format csv, force_quote (a, c, j), null 'N/A')"],
    ['n', "(format csv, delimiter ';', quote '*')"],
    ['n', "(delimiter '|', null '')"],
    ['u', 'csv'],
    ['u', ''],
  ];
  it.each(TO_CASES)('copy %s to %s', async (table, opts) => {
    await pg.exec('truncate n; truncate u');
    await pg.exec(`
      insert into n values
        (1, 9007199254740993, 1.50, 0.1, true, '2024-02-29', '2024-01-01 12:34:56.789', '2024-06-01 00:00:00+02', '1 year 2 mons 3 days 04:05:06.7', 'a;b'),
        (-2, -1, 'NaN', 'Infinity', false, '-infinity', 'infinity', '1999-12-31 23:59:59', '-1 day', 'q"*'),
        (null, null, null, null, null, null, null, null, null, ''),
        (0, 0, 0, -0.0, null, '0044-03-15 BC', '0044-03-15 12:00 BC', '2024-01-01', '0', 'N/A');
      insert into u values ('\\.'), (''), (null), ('a,b'), (E'x\\ny'), (E'tab\\there'), (E'back\\\\slash'), (E'ctl\\x01'), ('"q"'), (' lead');
    `);
    const out = await pg.query(`copy ${table} to '/dev/blob' ${opts}`);
    const pgText = await out.blob!.text();
    const cols = SCHEMAS[table]!.map((f) => f.name).join(', ');
    const sel = await pg.query(`copy ${table} (${cols}) to '/dev/blob' csv`);
    const batches = await collect(decodeCopy([await sel.blob!.text()], SCHEMAS[table]!, optionsOf(table, 'from', 'csv'), { table, timezone: 'UTC' }));
    expect(await encodeCopyToString(batches, SCHEMAS[table]!, optionsOf(table, 'to', opts), { table, timezone: 'UTC' })).toBe(pgText);
  });
});

describe('parseCopyOptions matches PostgreSQL', () => {
  const OPTS: [string, string][] = [
    ['from', '(format xml)'],
    ['from', '(format csv, format csv)'],
    ['from', '(bogus 1)'],
    ['from', "(delimiter ',,')"],
    ['from', "(delimiter '\\')"],
    ['from', "(delimiter 'a')"],
    ['from', "(format csv, delimiter 'a')"],
    ['from', "(delimiter E'\\n')"],
    ['from', "(null E'\\r')"],
    ['from', "(quote '\"')"],
    ['from', "(escape '\"')"],
    ['from', "(format csv, quote 'ab')"],
    ['from', "(format csv, quote ',')"],
    ['from', "(format csv, escape '')"],
    ['from', '(force_quote (a))'],
    ['from', '(format csv, force_quote (a))'],
    ['to', '(format csv, force_not_null (a))'],
    ['to', '(format csv, force_null (a))'],
    ['from', '(force_null (a))'],
    ['from', "(null ',', delimiter ',')"],
    ['from', "(format csv, null '\"')"],
    ['from', "(format binary, delimiter ',')"],
    ['from', "(format binary, null 'x')"],
    ['from', '(format binary, header)'],
    ['to', '(header match)'],
    ['from', "(header 'maybe')"],
    ['from', '(header 2)'],
    ['from', '(freeze 2)'],
    ['from', '(format csv, force_null a)'],
    ['from', '(format csv, force_quote a)'],
    ['from', '(on_error bogus)'],
    ['from', '(on_error ignore, format binary)'],
    ['to', '(on_error ignore)'],
    ['from', '(delimiter)'],
    ['from', '(null)'],
    ['from', '(format)'],
    ['from', "(encoding 'latin9x')"],
    ['from', '(reject_limit 3)'],
    ['from', '(format csv, header, header)'],
    ['from', '(format 1)'],
    ['from', '(delimiter 1)'],
    ['from', "(delimiter '.')"],
    ['from', "(format csv, delimiter 'é')"],
    ['from', "(format csv, delimiter E'\\t', null E'\\t')"],
    ['from', "(format csv, header on, delimiter ';', null 'NA', quote '''', escape '\\', force_not_null (a), force_null *)"],
    ['from', "delimiter ',' null as '' csv header quote as '\"' force not null a"],
    ['from', '(header 0, freeze off, header_x 1)'],
    ['from', '(on_error ignore, log_verbosity verbose, reject_limit 2)'],
  ];
  it.each(OPTS)('copy t %s %s', async (dir, opts) => {
    let want: Outcome;
    try {
      await pg.query(`copy t ${dir} '/dev/blob' ${opts}`, [], { blob: new Blob(['']) });
      want = {};
    } catch (e) {
      const x = e as { code?: string; message?: string };
      want = { code: x.code, message: x.message };
    }
    let got: Outcome;
    try {
      optionsOf('t', dir as 'from' | 'to', opts);
      got = {};
    } catch (e) {
      const x = e as { code?: string; message?: string };
      got = { code: x.code, message: x.message };
    }
    expect(got).toEqual(want);
  });

  it('reads both syntaxes into the same options', () => {
    const a = optionsOf('t', 'from', "with (format csv, header true, delimiter ';', null 'NA')");
    const b = optionsOf('t', 'from', "csv header delimiter ';' null 'NA'");
    expect(a).toEqual(b);
    expect(a).toMatchObject({ format: 'csv', header: true, delimiter: ';', null: 'NA', quote: '"', escape: '"' });
    expect(optionsOf('t', 'from', '')).toMatchObject({ format: 'text', delimiter: '\t', null: '\\N', header: false, quote: '', escape: '' });
    expect(optionsOf('t', 'from', '(format csv, header match)').header).toBe('match');
  });

  it('reports option positions', () => {
    try {
      optionsOf('t', 'from', '(format xml)');
      expect.unreachable();
    } catch (e) {
      expect((e as { position: number }).position).toBe(26);
    }
  });
});

describe('helpers', () => {
  it('deEscapeText', () => {
    expect(deEscapeText('plain')).toBe('plain');
    expect(deEscapeText('a\\tb\\\\c\\x41\\101')).toBe('a\tb\\cAA');
    expect(deEscapeText('\\xe2\\x82\\xac')).toBe('€');
    expect(() => deEscapeText('\\xff')).toThrow('invalid byte sequence for encoding "UTF8": 0xff');
  });
  it('limitPrintout clips at 100 bytes on a character boundary', () => {
    expect(limitPrintout('x'.repeat(100))).toBe('x'.repeat(100));
    expect(limitPrintout('x'.repeat(101))).toBe('x'.repeat(100) + '...');
    expect(limitPrintout('é'.repeat(60))).toBe('é'.repeat(50) + '...');
  });
  it('decodes Buffers with multi-byte characters split across chunks', async () => {
    const bytes = Buffer.from('é,😀\n€,x\n');
    const chunks = [...bytes].map((b) => Buffer.from([b]));
    const batches = await collect(decodeCopy(chunks, SCHEMAS.t!, optionsOf('t', 'from', 'csv'), { table: 't' }));
    expect(batches.flatMap((b) => batchRows(b))).toEqual([
      ['é', '😀'],
      ['€', 'x'],
    ]);
    await expect(collect(decodeCopy([Buffer.from([0x61, 0xff, 0x0a])], SCHEMAS.u!, optionsOf('u', 'from', ''), { table: 'u' }))).rejects.toMatchObject({
      code: '22021',
      message: 'invalid byte sequence for encoding "UTF8": 0xff',
    });
  });
  it('FORCE_* columns outside the COPY column list', async () => {
    const o = optionsOf('t', 'from', '(format csv, force_not_null (b))');
    await expect(collect(decodeCopy(['x\n'], [SCHEMAS.t![0]!], o, { table: 't', tableColumns: ['a', 'b'] }))).rejects.toMatchObject({
      code: '42P10',
      message: 'FORCE_NOT_NULL column "b" not referenced by COPY',
    });
    const o2 = optionsOf('t', 'from', '(format csv, force_null (c))');
    await expect(collect(decodeCopy(['x\n'], [SCHEMAS.t![0]!], o2, { table: 't', tableColumns: ['a', 'b'] }))).rejects.toMatchObject({
      code: '42703',
      message: 'column "c" of relation "t" does not exist',
    });
  });
  it('typed values round-trip through encode and decode in both formats', async () => {
    const src = '1,9223372036854775807,-1.50,1e-7,t,2024-02-29,2024-01-01 12:34:56.789,2024-06-01 00:00:00+02,1 year 2 mons -3 days 04:05:06.7,"a,b"\n' + ',,,,,,,,,""\n' + '-2147483648,-9007199254740993,NaN,-Infinity,f,-infinity,infinity,1999-12-31 23:59:59.999999+00,-1 day,"x\ty"\n';
    const batches = await collect(decodeCopy([src], SCHEMAS.n!, optionsOf('n', 'from', 'csv'), { table: 'n', timezone: 'UTC' }));
    const rows = batches.flatMap((b) => batchRows(b));
    expect(rows[2]![1]).toBe(-9007199254740993n);
    for (const opts of ['', 'csv', '(format csv, header, force_quote *)', "(delimiter '|', null 'NULL', header)"]) {
      const text = await encodeCopyToString(batches, SCHEMAS.n!, optionsOf('n', 'to', opts), { timezone: 'Asia/Kolkata' });
      const back = await collect(decodeCopy([text], SCHEMAS.n!, optionsOf('n', 'from', opts.replace(', force_quote *', '')), { table: 'n', timezone: 'Asia/Kolkata' }));
      expect(back.flatMap((b) => batchRows(b))).toEqual(rows);
    }
  });
  it('reports skipped rows as a notice', async () => {
    const notices: string[] = [];
    const o = optionsOf('n', 'from', '(format csv, on_error ignore)');
    const data = 'x,1,1,1,t,2024-01-01,2024-01-01,2024-01-01,1 day,a\n';
    await collect(decodeCopy([data + data], SCHEMAS.n!, o, { table: 'n', notice: (m) => notices.push(m) }));
    expect(notices).toEqual(['2 rows were skipped due to data type incompatibility']);
  });
});

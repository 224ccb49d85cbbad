/**
 * COPY … FROM a CSV file reads through the byte scanner when it can. Whatever it accepts must be
 * what PostgreSQL stores; whatever PostgreSQL refuses it must hand to the line reader (which gives
 * PostgreSQL's error). Both are checked against PGlite on the same bytes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatValue } from '../../src/common/format-value.js';
import { T, type DataType, type Field } from '../../src/common/types.js';
import { batchRows, type Batch } from '../../src/common/column.js';
import { CopyNeedsLineReader, readCsvForCopy } from '../../src/storage/table-functions/read-csv.js';
import { Database } from '../../src/index.js';
import { rng } from '../common/pg-helper.js';
import { makeCtx } from '../operators/helpers.js';
import { newPGlite } from '../common/pglite.js';

let pg: PGlite;
let db: Database;
let dir: string;

const TABLES: Record<string, { ddl: string; fields: Field[] }> = {
  t: {
    ddl: 'a text, b text',
    fields: [
      { name: 'a', type: T.text },
      { name: 'b', type: T.text },
    ],
  },
  n: {
    ddl: 'a int4, b int8, c float8, d date, e timestamp, f bool, g numeric, h varchar(3), i text',
    fields: [
      { name: 'a', type: T.int4 },
      { name: 'b', type: T.int8 },
      { name: 'c', type: T.float8 },
      { name: 'd', type: T.date },
      { name: 'e', type: T.timestamp },
      { name: 'f', type: T.bool },
      { name: 'g', type: T.numeric },
      { name: 'h', type: { name: 'varchar', typmod: 7 } as DataType },
      { name: 'i', type: T.text },
    ],
  },
  one: { ddl: 'a int4', fields: [{ name: 'a', type: T.int4 }] },
};

beforeAll(async () => {
  pg = newPGlite();
  await pg.query("set timezone='UTC'");
  db = await Database.create();
  await db.query("set timezone='UTC'");
  for (const [name, t] of Object.entries(TABLES)) {
    await pg.exec(`create table ${name} (${t.ddl})`);
    await db.query(`create table ${name} (${t.ddl})`);
  }
  dir = mkdtempSync(join(tmpdir(), 'quire-copy-csv-'));
});
afterAll(async () => {
  await pg.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Outcome {
  rows?: (string | null)[][];
  code?: string;
  message?: string;
}

function selectList(table: string): string {
  return TABLES[table]!.fields
    .map((f) => {
      if (f.type.name === 'bool') return `case when ${f.name} then 't' when not ${f.name} then 'f' end`;
      // The client's UTF-8 decoder drops a byte order mark that starts a value: spell it out.
      if (f.type.name === 'text') return `replace(${f.name}, chr(65279), '<BOM>')`;
      return `${f.name}::text`;
    })
    .join(', ');
}

/** Rows in a fixed order: PostgreSQL may place a short row on an earlier page than the one before it. */
function sorted(o: Outcome): Outcome {
  return o.rows === undefined ? o : { rows: [...o.rows].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)) };
}

async function pgCopy(table: string, opts: string, data: string): Promise<Outcome> {
  await pg.exec(`truncate ${table}`);
  try {
    await pg.query(`copy ${table} from '/dev/blob' ${opts}`, [], { blob: new Blob([data]) });
    const r = await pg.query<(string | null)[]>(`select ${selectList(table)} from ${table}`, [], { rowMode: 'array' });
    return sorted({ rows: r.rows });
  } catch (e) {
    const x = e as { code?: string; message?: string };
    return { code: x.code, message: x.message };
  }
}

let fileNo = 0;
function writeData(data: string): string {
  const file = join(dir, `in${fileNo++}.csv`);
  writeFileSync(file, data);
  return file;
}

async function quireCopy(table: string, opts: string, file: string): Promise<Outcome> {
  await db.query(`truncate ${table}`);
  try {
    await db.query(`copy ${table} from '${file}' ${opts}`);
    const r = await db.query(`select ${selectList(table)} from ${table}`);
    return sorted({ rows: r.rows as (string | null)[][] });
  } catch (e) {
    const x = e as { code?: string; message?: string };
    return { code: x.code, message: x.message };
  }
}

/** The byte scanner alone: its rows, or 'refused' when it hands the file to the line reader. */
async function scannerRows(table: string, file: string, d: { delimiter: string; quote: string; escape: string; nullString: string; header: boolean }): Promise<(string | null)[][] | 'refused'> {
  const fields = TABLES[table]!.fields;
  const out: (string | null)[][] = [];
  try {
    const batches: Batch[] = [];
    for await (const b of readCsvForCopy(file, fields, d, { timezone: 'UTC' }, makeCtx())) batches.push(b);
    for (const b of batches) {
      for (const r of batchRows(b)) {
        out.push(r.map((v, i) => (v === null ? null : fields[i]!.type.name === 'text' ? String(v).replaceAll('\ufeff', '<BOM>') : formatValue(v, fields[i]!.type, { timezone: 'UTC' }))));
      }
    }
  } catch (e) {
    if (e instanceof CopyNeedsLineReader) return 'refused';
    throw e;
  }
  return sorted({ rows: out }).rows!;
}

const CSV = { delimiter: ',', quote: '"', escape: '"', nullString: '', header: false };

describe('COPY FROM a CSV file through the byte scanner', () => {
  it('random text input: the scanner stores what PostgreSQL stores, or hands the file over', async () => {
    const r = rng(Number(process.env.COPY_SEED ?? 5));
    const pieces = ['a', 'b', ',', '\n', '\r', '\r\n', '"', '""', ' ', 'é', '\\', '\\.', '\ufeff', 'x,y', '"q,\nr"'];
    let read = 0;
    for (let k = 0; k < Number(process.env.COPY_N ?? 150); k++) {
      let data = '';
      const len = 1 + Math.floor(r() * 12);
      for (let i = 0; i < len; i++) data += pieces[Math.floor(r() * pieces.length)]!;
      const header = k % 5 === 0;
      const opts = header ? '(format csv, header true)' : 'csv';
      const want = await pgCopy('t', opts, data);
      const file = writeData(data);
      const scanned = await scannerRows('t', file, { ...CSV, header });
      if (scanned !== 'refused') {
        read++;
        expect({ data, rows: scanned }).toEqual({ data, rows: want.rows });
      }
      expect({ data, ...(await quireCopy('t', opts, file)) }).toEqual({ data, ...want });
    }
    // Plain inputs are read by the scanner: it must not refuse everything.
    expect(read).toBeGreaterThan(10);
  });

  const TYPED: [string, string][] = [
    ['plain values', '1,2,1.5,2024-02-29,2024-01-01 10:00:00,t,1.50,abc,x\n-3,9007199254740993,-0.25,0001-01-01,2024-01-01T10:00:00.123456,false,-7,ab,\n'],
    ['NULLs are the unquoted empty string only', ',,,,,,,,\n'],
    ['a quoted empty field is an empty string, not NULL', '1,2,3,2024-01-01,2024-01-01 00:00:00,t,1,"",""\n'],
    ['a quoted empty int is an error', '"",2,3,2024-01-01,2024-01-01 00:00:00,t,1,a,b\n'],
    ['spaces around numbers', ' 12 , 13 , 1.5 ,2024-01-01,2024-01-01 00:00:00, t ,1,a,b\n'],
    ['too long for varchar(3)', '1,2,3,2024-01-01,2024-01-01 00:00:00,t,1,abcd,b\n'],
    ['int out of range', '2147483648,2,3,2024-01-01,2024-01-01 00:00:00,t,1,a,b\n'],
    ['float forms', '1,2,1e300,2024-01-01,2024-01-01 00:00:00,t,1,a,b\n1,2,-Infinity,2024-01-01,2024-01-01 00:00:00,t,1,a,b\n1,2,NaN,2024-01-01,2024-01-01 00:00:00,t,1,a,b\n1,2,.5,2024-01-01,2024-01-01 00:00:00,t,1,a,b\n'],
    ['bad date', '1,2,3,2023-02-29,2024-01-01 00:00:00,t,1,a,b\n'],
    ['other date forms', '1,2,3,January 8 2024,2024-01-01 10:00:00+02,yes,1e3,a,b\n'],
    ['missing column', '1,2,3\n'],
    ['extra column', '1,2,3,2024-01-01,2024-01-01 00:00:00,t,1,a,b,c\n'],
    ['CRLF line endings', '1,2,3,2024-01-01,2024-01-01 00:00:00,t,1,a,b\r\n4,5,6,2024-01-02,2024-01-02 00:00:00,f,2,c,d\r\n'],
    ['multibyte text', '1,2,3,2024-01-01,2024-01-01 00:00:00,t,1,é😀x,"ü,\n😀"\n'],
  ];
  it.each(TYPED)('typed columns: %s', async (_, data) => {
    const want = await pgCopy('n', 'csv', data);
    const file = writeData(data);
    expect(await quireCopy('n', 'csv', file)).toEqual(want);
    const scanned = await scannerRows('n', file, CSV);
    if (scanned !== 'refused') expect(scanned).toEqual(want.rows);
  });

  it('an empty line is a row of one NULL for a one-column table, as in PostgreSQL', async () => {
    const data = '1\n\n2\n';
    const want = await pgCopy('one', 'csv', data);
    expect(want.rows).toEqual([['1'], ['2'], [null]]);
    const file = writeData(data);
    expect(await scannerRows('one', file, CSV)).toBe('refused');
    expect(await quireCopy('one', 'csv', file)).toEqual(want);
  });

  it('other delimiters, quotes and escapes', async () => {
    const cases: [string, string, { delimiter: string; quote: string; escape: string }][] = [
      ["(format csv, delimiter '|')", 'a|"b|c"\n"x""y"|z\n', { delimiter: '|', quote: '"', escape: '"' }],
      ["(format csv, quote '''')", "'a,b',c\n'it''s',d\n", { delimiter: ',', quote: "'", escape: "'" }],
      ["(format csv, escape '\\')", '"a\\"b",c\n"d\\\\e",f\n"g\\h",i\n', { delimiter: ',', quote: '"', escape: '\\' }],
      ["(format csv, null 'NA')", 'NA,"NA"\n,x\n', { delimiter: ',', quote: '"', escape: '"' }],
    ];
    for (const [opts, data, d] of cases) {
      const want = await pgCopy('t', opts, data);
      const file = writeData(data);
      expect({ opts, ...(await quireCopy('t', opts, file)) }).toEqual({ opts, ...want });
      const nullString = opts.includes("null 'NA'") ? 'NA' : '';
      const scanned = await scannerRows('t', file, { ...d, nullString, header: false });
      if (scanned !== 'refused') expect({ opts, rows: scanned }).toEqual({ opts, rows: want.rows });
    }
  });

  it('columns outside a COPY column list take their defaults, a serial one value per row', async () => {
    const ddl = "create table dflt (id serial, a int, b int default 7, c text default 'x' || 'y', r float8 default random())";
    await pg.exec(ddl);
    await db.query(ddl);
    const sel = 'select id, a, b, c, r between 0 and 1 as in_range from dflt order by id';
    for (const [opts, data] of [['csv', '10\n20\n\n30\n'], ['(format text)', '40\n\\N\n50\n60\n']] as const) {
      await pg.query(`copy dflt (a) from '/dev/blob' ${opts}`, [], { blob: new Blob([data]) });
      await db.query(`copy dflt (a) from '${writeData(data)}' ${opts}`);
    }
    const want = (await pg.query<Record<string, unknown>>(sel)).rows.map((r) => Object.values(r));
    const got = (await db.query(sel)).rows;
    expect(got).toEqual(want);
    expect(got.length).toBe(8);
    // random() is evaluated per row, not once per statement.
    expect(Number((await db.query('select count(distinct r) from dflt')).rows[0]![0])).toBe(8);
  });

  it('many rows across read buffers', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 60000; i++) lines.push(i % 7 === 0 ? `${i},` : `${i},"v ${i}, ""q""\nnext"`);
    const data = lines.join('\n') + '\n';
    const want = await pgCopy('t', 'csv', data);
    const file = writeData(data);
    const scanned = await scannerRows('t', file, CSV);
    expect(scanned).not.toBe('refused');
    expect(scanned).toEqual(want.rows);
    expect(await quireCopy('t', 'csv', file)).toEqual(want);
  });
});

/**
 * read_csv against DuckDB's read_csv on the same files: inferred types and values, NULLs, quoting
 * (delimiters, doubled quotes, newlines inside quotes), CRLF, multibyte UTF-8, records and characters
 * cut by chunk boundaries (tiny buffer_size), gzip, options, ignore_errors; plus the errors read_csv
 * raises for malformed input, read_csv_rejects, projection pushdown and cancellation.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

let dir: string;
let db: Database;
let duck: DuckDBConnection;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-csvdiff-'));
  db = await Database.create();
  const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
  duck = await inst.connect();
});
afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

function write(name: string, content: string | Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

const TS = /^(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d)(\.\d*?)0*$/;

/** Timestamps as text without trailing fractional zeros, so both engines' spellings compare. */
function canonText(s: string): string {
  const m = TS.exec(s);
  return m === null ? s : m[1]! + (m[2] === '.' ? '' : m[2]!);
}

async function quireRows(sql: string): Promise<unknown[][]> {
  const r = await db.query(sql);
  return r.rows.map((row) =>
    row.map((v, i) => {
      if (v === null) return null;
      const t = r.columns[i]!.type;
      if (t.name === 'date' || t.name === 'timestamp' || t.name === 'timestamptz') return canonText(db.formatValue(v as never, t)!);
      if (t.name === 'numeric') return Number(String(v));
      return typeof v === 'bigint' ? Number(v) : v;
    }),
  );
}

async function duckRows(sql: string): Promise<unknown[][]> {
  const rows = (await duck.runAndReadAll(sql)).getRows();
  return rows.map((row) =>
    row.map((v) => {
      if (v === null) return null;
      if (typeof v === 'bigint') return Number(v);
      if (typeof v === 'object') return canonText(String(v));
      return v;
    }),
  );
}

/** Type families both engines agree on (DuckDB says BIGINT/DOUBLE/VARCHAR where Quire narrows). */
async function quireFamilies(sql: string): Promise<string[]> {
  const r = await db.query(sql);
  const fam: Record<string, string> = { int4: 'int', int8: 'int', int2: 'int', float8: 'float', numeric: 'int', text: 'text', varchar: 'text', bool: 'bool', date: 'date', timestamp: 'timestamp' };
  return r.columns.map((c) => fam[c.type.name] ?? c.type.name);
}
async function duckFamilies(sql: string): Promise<string[]> {
  const r = await duck.runAndReadAll(sql);
  const fam: Record<string, string> = { INTEGER: 'int', BIGINT: 'int', HUGEINT: 'int', SMALLINT: 'int', DOUBLE: 'float', VARCHAR: 'text', BOOLEAN: 'bool', DATE: 'date', TIMESTAMP: 'timestamp' };
  return r.columnTypes().map((t) => fam[t.toString()] ?? t.toString());
}

/** Same file, same options (DuckDB spelling `name=value`, Quire `name => value`): same rows. */
async function same(file: string, opts: Record<string, string> = {}, quireOnly: Record<string, string> = {}, select = '*', order = ''): Promise<unknown[][]> {
  const q = Object.entries({ ...opts, ...quireOnly }).map(([k, v]) => `, ${k} => ${v}`).join('');
  const d = Object.entries(opts).map(([k, v]) => `, ${k}=${v}`).join('');
  const qs = `SELECT ${select} FROM read_csv('${file}'${q})${order}`;
  const ds = `SELECT ${select} FROM read_csv('${file}'${d})${order}`;
  const [a, b] = [await quireRows(qs), await duckRows(ds)];
  expect(a).toEqual(b);
  if (select === '*') expect(await quireFamilies(qs)).toEqual(await duckFamilies(ds));
  return a;
}

/** A seeded generator (mulberry32), so failures reproduce. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['plain', 'a,b', 'say "hi"', 'two\nlines', 'crlf\r\ninside', 'ünïcödé', '日本語テキスト', '😀 emoji', '', ' padded ', 'x'];

/** DuckDB reads a quoted empty field as NULL, read_csv (like COPY) as '': left out here. */
function quoteField(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** id, an int with NULLs, a double, quoted text of every kind, a date and a timestamp. */
function generated(rows: number, seed: number, eol = '\n'): string {
  const r = rng(seed);
  let out = `id,n,x,note,day,ts${eol}`;
  for (let i = 0; i < rows; i++) {
    const n = r() < 0.1 ? '' : String(Math.floor(r() * 2e6) - 1e6);
    const x = r() < 0.1 ? '' : String(Math.round((r() - 0.5) * 1e6) / 1000);
    const w = WORDS[Math.floor(r() * WORDS.length)]!;
    const note = r() < 0.05 ? '' : quoteField(w + (r() < 0.5 ? String(i) : ''));
    const day = r() < 0.1 ? '' : `20${10 + Math.floor(r() * 15)}-0${1 + Math.floor(r() * 9)}-1${Math.floor(r() * 9)}`;
    const at = r() < 0.1 ? '' : `${day || '2020-01-01'} ${String(Math.floor(r() * 24)).padStart(2, '0')}:${String(Math.floor(r() * 60)).padStart(2, '0')}:0${Math.floor(r() * 9)}`;
    out += `${i},${n},${x},${note},${day},${at}${eol}`;
  }
  return out;
}

describe('read_csv matches DuckDB', () => {
  it('infers types and reads values and NULLs', async () => {
    const f = write(
      'types.csv',
      'i,big,d,s,day,ts,b\n' +
        '1,3000000000,1.5,hello,2024-01-02,2024-01-02 03:04:05,true\n' +
        '-2,,-0.25,,2024-02-29,2024-02-29 23:59:59.5,false\n' +
        ',-9000000000000000000,1e3,,,,\n' +
        '4,7,0.1234567890123456789,"with ""quotes""",1999-12-31,2000-01-01 00:00:00,true\n',
    );
    await same(f, { header: 'true' });
  });

  it('quoted delimiters, doubled quotes, embedded LF and CRLF, CRLF records, multibyte text', async () => {
    const content = generated(3000, 1, '\r\n');
    const f = write('quoted.csv', content);
    const rows = await same(f, { header: 'true' });
    expect(rows.length).toBe(3000);
    expect(rows.some((r) => typeof r[3] === 'string' && r[3].includes('\r\n'))).toBe(true);
    expect(rows.some((r) => typeof r[3] === 'string' && r[3].includes('日本語'))).toBe(true);
  });

  it('records and UTF-8 characters cut by chunk boundaries (tiny buffer_size)', async () => {
    const small = write('chunks-small.csv', generated(200, 2));
    const expectedSmall = await same(small, { header: 'true' });
    for (const size of [1, 2, 3]) {
      expect(await quireRows(`SELECT * FROM read_csv('${small}', header => true, buffer_size => ${size})`)).toEqual(expectedSmall);
    }
    const f = write('chunks.csv', generated(1500, 2));
    const expected = await same(f, { header: 'true' });
    for (const size of [7, 64, 1000]) {
      expect(await quireRows(`SELECT * FROM read_csv('${f}', header => true, buffer_size => ${size})`)).toEqual(expected);
    }
  });

  it('reads gzip files by extension and by option', async () => {
    const content = generated(2000, 3);
    const f = write('data.csv.gz', gzipSync(Buffer.from(content)));
    const rows = await same(f, { header: 'true' });
    expect(rows.length).toBe(2000);
    expect(await quireRows(`SELECT count(*) FROM '${f}'`)).toEqual([[2000]]);
    const g = write('data.bin', gzipSync(Buffer.from(content)));
    expect(await quireRows(`SELECT * FROM read_csv('${g}', compression => 'gzip', buffer_size => 5)`)).toEqual(rows);
    const bad = write('bad.csv.gz', Buffer.from('not gzip at all\n'));
    await expect(db.query(`SELECT * FROM read_csv('${bad}')`)).rejects.toMatchObject({ code: '22P04' });
  });

  it('delimiter, quote, escape, NULL string, skip and no header', async () => {
    const f = write('opts.txt', "junk line\nanother\n1;'a;b';NA;x\n2;'it\\'s';3;NA\n3;'back\\\\slash';5;'q'\n");
    await same(f, { header: 'false', delim: "';'", quote: "''''", escape: "'\\'", nullstr: "'NA'", skip: '2' });
  });

  it("without a delimiter, finds comma, tab, semicolon or bar as DuckDB's sniffer does", async () => {
    const files: [string, string][] = [
      ['tabs.tsv', 'id\tname\tv\n1\ta,b\t1.5\n2\tc;d\t2.5\n'],
      ['semi.csv', 'a;b;c\n1;"x;y";2,5\n3;z,w;4\n'],
      ['bar.txt', 'a|b\n1|2\n3|4\n'],
      // Commas split alike; the semicolons inside fields do not.
      ['comma.csv', 'a,b\n1,"x;y"\n2,p;q;r\n'],
      ['blank-lines.csv', 'a;b\n1;2\n\n3;4\n'],
      ['quoted-tabs.tsv', 'a\tb\n"1\t2"\tx\n3\t"y\nz"\n'],
    ];
    for (const [name, content] of files) {
      const f = write(name, content);
      await same(f);
      expect((await db.query(`SELECT * FROM '${f}'`)).columns.map((c) => c.name), name).toEqual(
        (await duck.runAndReadAll(`SELECT * FROM read_csv('${f}')`)).columnNames(),
      );
    }
    // One column whose values hold other candidates (DuckDB 1.5 reads no rows from this file).
    const one = write('one.csv', 'note\nhello; world\nx|y\n');
    expect((await db.query(`SELECT * FROM '${one}'`)).rows).toEqual([['hello; world'], ['x|y']]);
    // A delimiter given is used as given, and gzip files are sniffed after decompression.
    const semi = write('semi-given.csv', 'a;b\n1;2\n');
    expect((await db.query(`SELECT * FROM read_csv('${semi}', delim => ',')`)).columns.map((c) => c.name)).toEqual(['a;b']);
    const gz = write('tabs.tsv.gz', gzipSync(Buffer.from('a\tb\n1\t2\n')));
    expect((await db.query(`SELECT * FROM '${gz}'`)).rows).toEqual([[1, 2]]);
    // skip: the records skipped do not vote.
    const skipped = write('skip.csv', 'title: report, 2024\nx|y|z\n1|2|3\n');
    expect((await db.query(`SELECT * FROM read_csv('${skipped}', skip => 1)`)).rows).toEqual([[1, 2, 3]]);
  });

  it('explicit column types', async () => {
    const f = write('typed.csv', 'a,b,c\n1,2.5,x\n2,,y\n');
    const a = await quireRows(`SELECT * FROM read_csv('${f}', columns => 'a bigint, b double precision, c text')`);
    const b = await duckRows(`SELECT * FROM read_csv('${f}', header=true, columns={'a': 'BIGINT', 'b': 'DOUBLE', 'c': 'VARCHAR'})`);
    expect(a).toEqual(b);
    // types => overrides inferred columns by name only.
    const r = await db.query(`SELECT * FROM read_csv('${f}', types => 'a text')`);
    expect(r.columns.map((c) => c.type.name)).toEqual(['text', 'float8', 'text']);
    expect(r.rows[0]).toEqual(['1', 2.5, 'x']);
  });

  it('ignore_errors drops the records DuckDB drops', async () => {
    let s = 'a,b\n';
    for (let i = 0; i < 100; i++) s += `${i},${i * 2}\n`;
    s += 'oops,1\n1,2,3\n7\n101,202\n';
    const f = write('bad.csv', s);
    // The sample sees 'oops', so a is text and only the records of the wrong width go.
    expect((await same(f, { header: 'true', ignore_errors: 'true' })).length).toBe(102);
    const a = await quireRows(`SELECT * FROM read_csv('${f}', ignore_errors => true, columns => 'a int, b int', header => true)`);
    const b = await duckRows(`SELECT * FROM read_csv('${f}', ignore_errors=true, header=true, columns={'a': 'INTEGER', 'b': 'INTEGER'})`);
    expect(a).toEqual(b);
    expect(a.length).toBe(101);
  });

  it('sample_size => -1 infers from the whole file', async () => {
    let s = 'n\n';
    for (let i = 0; i < 5000; i++) s += `${i}\n`;
    s += '1.5\n';
    const f = write('late.csv', s);
    await same(f, { header: 'true', sample_size: '-1' });
  });

  it('quoted fields longer than the scanner\'s 64 KiB index window, with quotes, delimiters and line ends across its edges', async () => {
    // Pieces of 7 bytes against windows of 65,536: quote pairs, CRLF and multibyte characters land on
    // every offset of a window's edge somewhere in the file.
    const pieces = ['ab,""cd', 'x\r\ny日z', '1,2,3,4', '"",""é', 'q\rr\nss'];
    const r = rng(17);
    let s = 'id,note,n\n';
    for (let i = 0; i < 12; i++) {
      let note = '';
      const len = 20_000 + Math.floor(r() * 40_000);
      while (note.length < len) note += pieces[Math.floor(r() * pieces.length)]!;
      s += `${i},"${note.replace(/"/g, '""')}",${i * 3}\n`;
      s += `${i}.5,short,\n`;
    }
    const f = write('long-quoted.csv', s);
    const rows = await same(f, { header: 'true', delim: "','", quote: "'\"'", escape: "'\"'" }, {}, 'id, length(note) AS len, md5(note) AS h, n', ' ORDER BY id');
    expect(rows.length).toBe(24);
    for (const size of [4093, 70_000]) {
      expect(await quireRows(`SELECT id, length(note) AS len, md5(note) AS h, n FROM read_csv('${f}', header => true, buffer_size => ${size}) ORDER BY id`)).toEqual(rows);
    }
  });

  it('large random files at several chunk sizes', async () => {
    const f = write('big.csv', generated(20000, 4));
    const expected = await same(f, { header: 'true' });
    expect(await quireRows(`SELECT * FROM read_csv('${f}', buffer_size => 4093)`)).toEqual(expected);
    // Aggregates over the projected columns only.
    await same(f, { header: 'true' }, {}, 'count(*), count(n), sum(n), count(note), max(length(note)), min(ts)');
  });
});

/** ASCII-only text (read by cutting strings from decoded stretches of the buffer): every quoting shape. */
const ASCII_WORDS = ['plain', 'a,b', 'say "hi"', '""', 'two\nlines', 'crlf\r\ninside', 'lone\rcr', ' padded ', 'x', 'exactly13char', 'NA', '"lead', 'trail"'];

function generatedAscii(rows: number, seed: number, eol = '\n'): string {
  const r = rng(seed);
  let out = `id,note,tag,x${eol}`;
  for (let i = 0; i < rows; i++) {
    const w = ASCII_WORDS[Math.floor(r() * ASCII_WORDS.length)]!;
    // Now and then a field longer than a decode stretch (512 bytes), with or without quotes to undo.
    const long = r() < 0.02 ? w.repeat(40 + Math.floor(r() * 80)) : '';
    const note = r() < 0.05 ? '' : quoteField(w + long + (r() < 0.5 ? String(i) : ''));
    const tag = r() < 0.1 ? '' : r() < 0.5 ? `"t${i % 7}"` : `t${i % 7}`;
    out += `${i},${note},${tag},${(i % 1000) / 10}${eol}`;
  }
  return out;
}

describe('read_csv ASCII text matches DuckDB', () => {
  it('quoted delimiters, doubled quotes, LF, CRLF and lone CR inside quotes, long fields', async () => {
    for (const eol of ['\n', '\r\n']) {
      const f = write(`ascii${eol.length}.csv`, generatedAscii(6000, 11, eol));
      const rows = await same(f, { header: 'true' });
      expect(rows.length).toBe(6000);
      expect(rows.some((r) => typeof r[1] === 'string' && r[1].length > 512)).toBe(true);
      expect(rows.some((r) => typeof r[1] === 'string' && r[1].includes('say "hi"'))).toBe(true);
      await same(f, { header: 'true' }, {}, 'length(note) AS len, count(*) AS n, sum(x) AS total', ' GROUP BY 1 ORDER BY 1');
      for (const size of [5, 300, 4093]) {
        expect(await quireRows(`SELECT * FROM read_csv('${f}', header => true, buffer_size => ${size})`)).toEqual(rows);
      }
    }
  });

  it('an empty quoted field is the empty string, an unquoted one NULL; the NULL string is matched on the bytes', async () => {
    const f = write('ascii-nulls.csv', 'a,b\n1,""\n2,\n3,"x"\n4,NA\n5,"NA"\n6,"N""A"\n');
    expect(await quireRows(`SELECT a, b, b IS NULL FROM read_csv('${f}') ORDER BY a`)).toEqual([
      [1, '', false],
      [2, null, true],
      [3, 'x', false],
      [4, 'NA', false],
      [5, 'NA', false],
      [6, 'N"A', false],
    ]);
    expect(await quireRows(`SELECT a, b FROM read_csv('${f}', nullstr => 'NA') ORDER BY a`)).toEqual([
      [1, ''],
      [2, ''],
      [3, 'x'],
      [4, null],
      [5, 'NA'],
      [6, 'N"A'],
    ]);
  });

  it('a separate escape character, and records dropped by ignore_errors between converted ones', async () => {
    let s = 'a;b;c\n';
    for (let i = 0; i < 3000; i++) {
      s += i % 97 === 5 ? `${i};'only two'\n` : `${i};'it\\'s ${i % 13}';'back\\\\slash ${i}'\n`;
    }
    const f = write('ascii-escape.csv', s);
    const rows = await same(f, { header: 'true', delim: "';'", quote: "''''", escape: "'\\'", ignore_errors: 'true' });
    expect(rows.length).toBe(3000 - Math.ceil((3000 - 5) / 97));
    expect(rows[0]).toEqual([0, "it's 0", 'back\\slash 0']);
  });
});

describe('read_csv doubles with 17 significant digits', () => {
  it('converts shortest round-trip spellings from the bytes as DuckDB does', async () => {
    const r = rng(17);
    let s = 'x,y\n';
    for (let i = 0; i < 20000; i++) {
      const x = (r() - 0.5) * 10 ** Math.floor(r() * 6);
      s += `${x},${i % 97 === 0 ? '' : String(-r())}\n`;
    }
    // Quoted, with an exponent, 18 and 19 digits: the other paths stay as they were.
    s += '"0.12345678901234567",1.2345678901234567e-5\n123456789.12345678901,0.000123456789012345678\n';
    const f = write('doubles.csv', s);
    const rows = await same(f, { header: 'true' });
    expect(rows.length).toBe(20002);
    await same(f, { header: 'true' }, {}, 'sum(x), min(y), max(y), count(y)');
  });

  it('reads short decimals (up to 24 characters; mantissas below 2^53, and up to 1.8e19 through their low 32 bits: the one-pass path) and the shapes around it as DuckDB does', async () => {
    const r = rng(23);
    // (A leading zero or plus sign makes DuckDB infer text, so those are left out.)
    const vals = ['5.', '.5', '-.5', '-0.0', '0', '-12', '123456789012345', '1234567890123456', '12345678901234.5', '123456789012345.6', '0.000000000000001', '9007199254740993', '1.5e3', '-1.25E-2', '1.2.3',
      '9007199254740991', '9007199254740992', '-9007199254740991', '0.9007199254740991', '0.9007199254740992', '0.9007199254740993', '900719925474099.3', '0.7913460577595683', '-0.5826921155191366',
      '12345678901234567', '0.12345678901234567', '1.7976931348623157', '99999999999999999', '0.0000000000000001',
      '17999999999999999999', '1799999999999999999.9', '18000000000000000001', '18446744073709551617.5', '0.0000012345678901234567', '-0.00000000000000000000001',
      '0.000000000000000000000012', '123456789012345678901234'];
    let s = 'x,y\n';
    for (const v of vals) s += v === '1.2.3' ? `0.5,${v}\n` : `${v},0.5\n`;
    for (let i = 0; i < 5000; i++) {
      // 1 … 18 digits in all, the point anywhere among them: mantissas on both sides of 2^53.
      const intDigits = Math.floor(r() * 19);
      const fracDigits = Math.max(intDigits === 0 ? 1 : 0, Math.floor(r() * (19 - intDigits)));
      const int = intDigits === 0 ? '' : String(1 + Math.floor(r() * (10 ** intDigits - 10 ** (intDigits - 1)) + 10 ** (intDigits - 1) - 1));
      const frac = Array.from({ length: fracDigits }, () => Math.floor(r() * 10)).join('');
      s += `${r() < 0.3 ? '-' : ''}${int}${fracDigits > 0 || r() < 0.5 ? '.' : ''}${frac},${i}.0\n`;
    }
    for (let i = 0; i < 3000; i++) {
      // 16 … 20 significant digits (shortest spellings write 17), after up to five leading zeros.
      const n = 16 + Math.floor(r() * 5);
      let d = String(1 + Math.floor(r() * 9));
      for (let j = 1; j < n; j++) d += String(Math.floor(r() * 10));
      const at = Math.floor(r() * n);
      const v = r() < 0.5 ? '0.' + '0'.repeat(Math.floor(r() * 6)) + d : d.slice(0, at) + (at > 0 ? '.' : '') + d.slice(at);
      s += `${r() < 0.3 ? '-' : ''}${v.startsWith('.') ? '0' + v : v},${i}.5\n`;
    }
    const f = write('short-decimals.csv', s);
    // y holds '1.2.3' (text in both); x is double.
    const rows = await same(f, { header: 'true' });
    expect(rows.length).toBe(vals.length + 8000);
    expect(rows.every((row) => typeof row[0] === 'number')).toBe(true);
    await same(f, { header: 'true' }, {}, 'sum(x), min(x), max(x), count(x)');
  });
});

describe('read_csv integer and double columns (the WebAssembly number kernel) match DuckDB', () => {
  /** smallint, int, bigint and double columns with signs, NULLs, quoted numbers and values near each type's digit limit. */
  function numbers(rows: number, seed: number, nullWord: string): string {
    const r = rng(seed);
    // DuckDB reads an empty field as NULL only when that is the NULL string.
    const pick = (xs: readonly string[]): string => {
      const x = xs[Math.floor(r() * xs.length)]!;
      return x === '' ? nullWord : x;
    };
    const sign = (): string => ['', '', '', '-', '+'][Math.floor(r() * 5)]!;
    let s = 'a,b,c,d\n';
    for (let i = 0; i < rows; i++) {
      const a = r() < 0.05 ? pick(['', nullWord, '"12"', '32767', '-32768', '+0', '-0', '0012']) : sign() + String(Math.floor(r() * 10 ** Math.floor(1 + r() * 4)));
      const b = r() < 0.05 ? pick(['', nullWord, '"-7"', '2147483647', '-2147483648', '1000000000', '-999999999', '0']) : sign() + String(Math.floor(r() * 10 ** Math.floor(1 + r() * 9)));
      // Past 15 digits bigints leave the kernel (and, past 2^53, the column's doubles).
      const c = r() < 0.05 ? pick(['', nullWord, '9223372036854775807', '-9223372036854775808', '9007199254740993', '123456789012345', '1234567890123456']) : sign() + String(Math.floor(r() * 10 ** Math.floor(1 + r() * 15)));
      const d = r() < 0.05 ? pick(['', nullWord, '"0.5"', '1e10', '-0.0', '5.', '.5', '0.000123456789012345678', '12345678901234567890.5']) : (r() < 0.3 ? '-' : '') + String(r() * 10 ** Math.floor(r() * 8 - 3));
      s += `${a},${b},${c},${d}\n`;
    }
    return s;
  }
  const duckCols = "columns={'a': 'SMALLINT', 'b': 'INTEGER', 'c': 'BIGINT', 'd': 'DOUBLE'}";
  const quireCols = "columns => 'a smallint, b int, c bigint, d double precision'";

  it('reads every value as DuckDB does, across batches and at any chunk size', async () => {
    const f = write('numbers.csv', numbers(12000, 41, ''));
    const expected = await duckRows(`SELECT * FROM read_csv('${f}', header=true, ${duckCols})`);
    expect(expected.length).toBe(12000);
    for (const size of [262144, 4096, 333]) {
      expect(await quireRows(`SELECT * FROM read_csv('${f}', header => true, ${quireCols}, buffer_size => ${size})`)).toEqual(expected);
    }
  });

  it('with a NULL string, also one a number could be equal to', async () => {
    for (const word of ['NA', '0', '-0', '12.5']) {
      const f = write(`numbers-null-${word}.csv`, numbers(6000, 43, word));
      const expected = await duckRows(`SELECT * FROM read_csv('${f}', header=true, nullstr='${word}', ${duckCols})`);
      expect(await quireRows(`SELECT * FROM read_csv('${f}', header => true, nullstr => '${word}', ${quireCols})`)).toEqual(expected);
    }
  });

  it('a value that does not fit is an error naming its line and column, as before', async () => {
    let s = 'a,b\n';
    for (let i = 0; i < 5000; i++) s += `${i % 30000},${i}\n`;
    s += '40000,1\n';
    const f = write('numbers-overflow.csv', s);
    await expect(db.query(`SELECT * FROM read_csv('${f}', header => true, columns => 'a smallint, b int')`)).rejects.toMatchObject({
      code: '22003',
      message: 'value "40000" is out of range for type smallint',
      detail: `read_csv "${f}", line 5002, column a: "40000"`,
    });
  });
});

describe('read_csv plain records (the WebAssembly record splitter) match DuckDB', () => {
  /**
   * Plain records with multibyte text and NULLs, now and then a quoted field (DuckDB's sniffer does
   * not take a mix of line ends; the scanner test holds the splitter to the scanner's loop on those).
   */
  function plain(rows: number, seed: number): string {
    const r = rng(seed);
    const text = ['plain', 'ünïcödé', '日本語テキスト', '😀 emoji', 'x', 'name 42'];
    let s = 'id,n,x,t\n';
    for (let i = 0; i < rows; i++) {
      const t = text[Math.floor(r() * text.length)]!;
      const odd = r();
      const note = odd < 0.002 ? `"quoted, ${t}"` : t;
      s += `${i},${r() < 0.05 ? '' : Math.floor(r() * 2e6) - 1e6},${r() < 0.05 ? '' : String(r() * 1000)},${note}\n`;
    }
    return s;
  }

  it('reads the same rows at any chunk size (records and UTF-8 characters cut by chunk ends)', async () => {
    const f = write('plain.csv', plain(20000, 51));
    const expected = await same(f, { header: 'true' });
    expect(expected.length).toBe(20000);
    for (const size of [1000, 65536, 100003]) {
      expect(await quireRows(`SELECT * FROM read_csv('${f}', header => true, buffer_size => ${size})`)).toEqual(expected);
    }
  });

  it('a short or long record among plain ones is an error naming its line, or dropped by ignore_errors as DuckDB drops it', async () => {
    let s = 'a,b,c\n';
    for (let i = 0; i < 9000; i++) s += i === 7000 ? `${i},1\n` : i === 8000 ? `${i},1,2,3\n` : `${i},${i % 7},w${i % 3}\n`;
    const f = write('plain-bad.csv', s);
    await expect(db.query(`SELECT * FROM read_csv('${f}', columns => 'a int, b int, c text', header => true)`)).rejects.toMatchObject({
      code: '22P04',
      message: 'missing data for column "c"',
      detail: `read_csv "${f}", line 7002: "7000,1"`,
    });
    const a = await quireRows(`SELECT * FROM read_csv('${f}', ignore_errors => true, columns => 'a int, b int, c text', header => true)`);
    const b = await duckRows(`SELECT * FROM read_csv('${f}', ignore_errors=true, header=true, columns={'a': 'INTEGER', 'b': 'INTEGER', 'c': 'VARCHAR'})`);
    expect(a.length).toBe(8998);
    expect(a).toEqual(b);
  });
});

describe('read_csv quoted records (the WebAssembly record splitter reads quotes) match DuckDB', () => {
  /**
   * Every text quoted (as FORCE_QUOTE writes it): delimiters, doubled quotes and line ends inside.
   * (An empty quoted text is the empty string here and NULL in DuckDB: tested on its own above.)
   */
  function quoted(rows: number, seed: number): { text: string; lines: number[] } {
    const r = rng(seed);
    const bodies = ['item 1, size 2', 'say ""hi""', 'two\nlines', 'three\nshort\nlines', ' ', 'ünï, "" 日本語\n😀', 'x'.repeat(70)];
    let s = 'id,note,price\n';
    // The line each record starts on.
    const lines: number[] = [];
    let line = 2;
    for (let i = 0; i < rows; i++) {
      const b = bodies[Math.floor(r() * bodies.length)]!;
      lines.push(line);
      s += `${i},"${b}",${(i % 1000) / 10}\n`;
      line += 1 + b.split('\n').length - 1;
    }
    return { text: s, lines };
  }

  it('reads the same rows as DuckDB at any chunk size', async () => {
    const f = write('quoted.csv', quoted(30000, 61).text);
    const sql = (size: number): string => `SELECT id, note, length(note) AS len, price FROM read_csv('${f}', header => true, buffer_size => ${size}) ORDER BY id`;
    const expected = await duckRows(`SELECT id, note, length(note) AS len, price FROM read_csv('${f}', header = true) ORDER BY id`);
    expect(expected.length).toBe(30000);
    for (const size of [1000, 65536, 1 << 20]) expect(await quireRows(sql(size))).toEqual(expected);
  });

  it('an error after records with line ends inside quotes names the line its record starts on', async () => {
    const { text, lines } = quoted(6000, 62);
    const recs = text.split(/\n(?=\d+,")/);
    // Record 5000 (its text after the header's record) gets a price that is no number.
    const bad = recs.map((x, i) => (i === 5001 ? x.replace(/,([0-9.]+)$/, ',oops') : x)).join('\n');
    const f = write('quoted-bad.csv', bad);
    await expect(db.query(`SELECT * FROM read_csv('${f}', header => true, columns => 'id int, note text, price double precision')`)).rejects.toMatchObject({
      code: '22P02',
      detail: expect.stringContaining(`line ${lines[5000]!}, column price`),
    });
  });
});

describe('read_csv errors and extras', () => {
  it('malformed records name file, line and column with a SQLSTATE', async () => {
    const f = write('err.csv', 'a,b\n1,2\n3,x\n');
    await expect(db.query(`SELECT * FROM read_csv('${f}', sample_size => 1)`)).rejects.toMatchObject({
      code: '22P02',
      message: 'invalid input syntax for type integer: "x"',
      detail: `read_csv "${f}", line 3, column b: "x"`,
    });
    // Decimals the one-pass path declines and the type's input rejects: line and column named.
    for (const bad of ['1..5', '0.12345678901234567.8', '-', '1-2', '12345678901234567890x']) {
      const g = write('bad-double.csv', `x,y\r\n0.5,a\r\n${bad},b\r\n`);
      await expect(db.query(`SELECT * FROM read_csv('${g}', types => 'x double')`)).rejects.toMatchObject({
        code: '22P02',
        message: `invalid input syntax for type double precision: "${bad}"`,
        detail: `read_csv "${g}", line 3, column x: "${bad}"`,
      });
    }
    const late = write('late2.csv', 'n\n1\n2\nbig\n');
    const e = await db.query(`SELECT * FROM read_csv('${late}', sample_size => 2)`).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: '22P02', detail: `read_csv "${late}", line 4, column n: "big"` });
    expect((e as { hint: string }).hint).toContain('sample_size => -1');
    const wide = write('wide.csv', 'a,b\n1,2\n"multi\nline",2,3\n');
    await expect(db.query(`SELECT * FROM read_csv('${wide}', columns => 'a text, b int', header => true)`)).rejects.toMatchObject({
      code: '22P04',
      message: 'extra data after last expected column',
      detail: `read_csv "${wide}", line 3: "multi\nline,2,3"`.replace('multi\nline', '"multi\nline"'),
    });
    const unterminated = write('unterminated.csv', 'a,b\n1,2\n3,"open\n4,5\n');
    await expect(db.query(`SELECT * FROM read_csv('${unterminated}', columns => 'a int, b text', header => true)`)).rejects.toMatchObject({
      code: '22P04',
      message: 'unterminated CSV quoted field',
      detail: `read_csv "${unterminated}", line 3`,
    });
    const badUtf8 = write('badutf8.csv', Buffer.concat([Buffer.from('a,b\n1,ok\n2,'), Buffer.from([0xc3, 0x28]), Buffer.from('\n')]));
    await expect(db.query(`SELECT * FROM read_csv('${badUtf8}')`)).rejects.toMatchObject({ code: '22021', message: 'invalid byte sequence for encoding "UTF8": 0xc3 0x28' });
    const long = write('long.csv', 'a\n"' + 'x'.repeat(5000) + '"\n');
    await expect(db.query(`SELECT * FROM read_csv('${long}', columns => 'a text', max_line_size => 1000, buffer_size => 100)`)).rejects.toMatchObject({
      code: '54000',
    });
  });

  it('errors in records that cross the scanner\'s 64 KiB index windows name the right line', async () => {
    // Line k is "k,<note>\r\n" with quoted notes holding newlines (which count as lines) and a NULL now
    // and then; the bad record is placed so that it straddles byte 65,536 and, in a second file, 131,072.
    for (const edge of [1 << 16, 1 << 17]) {
      let s = 'id,note,n\r\n';
      let line = 2;
      let i = 0;
      while (s.length < edge - 40) {
        const note = i % 7 === 0 ? '"two\nlines, and a ""quote"""' : i % 5 === 0 ? '' : `plain ${i}`;
        s += `${i},${note},${i % 3 === 0 ? '' : i}\r\n`;
        line += i % 7 === 0 ? 2 : 1;
        i++;
      }
      const good = s;
      const badLine = line;
      // Wrong width, an unterminated quote, and a value that does not fit int, each across the edge.
      const wide = write(`edge-wide-${edge}.csv`, good + `${i},"a\r\nb",1,2,${'x'.repeat(60)}\r\n${i + 1},c,3\r\n`);
      await expect(db.query(`SELECT * FROM read_csv('${wide}', columns => 'id int, note text, n int', header => true)`)).rejects.toMatchObject({
        code: '22P04',
        message: 'extra data after last expected column',
        detail: expect.stringContaining(`line ${badLine}:`),
      });
      const open = write(`edge-open-${edge}.csv`, good + `${i},"never closed ${'y'.repeat(80)}\r\n${i + 1},c,3\r\n`);
      await expect(db.query(`SELECT * FROM read_csv('${open}', columns => 'id int, note text, n int', header => true)`)).rejects.toMatchObject({
        code: '22P04',
        message: 'unterminated CSV quoted field',
        detail: `read_csv "${open}", line ${badLine}`,
      });
      const misfit = write(`edge-misfit-${edge}.csv`, good + `${i},"z${'z'.repeat(60)}",notanumber\r\n`);
      await expect(db.query(`SELECT * FROM read_csv('${misfit}', columns => 'id int, note text, n int', header => true)`)).rejects.toMatchObject({
        code: '22P02',
        detail: expect.stringContaining(`line ${badLine}, column n: "notanumber"`),
      });
      // The good part reads as DuckDB reads it (NULLs, quoted newlines and quotes across the edge).
      const ok = write(`edge-ok-${edge}.csv`, good + `${i},"across ${'w'.repeat(60)}\r\nthe edge",7\r\n`);
      const rows = await same(ok, { header: 'true', delim: "','", quote: "'\"'", escape: "'\"'" }, {}, 'id, note, n', ' ORDER BY id');
      expect(rows.length).toBe(i + 1);
    }
  });

  it('infers the same kinds from bytes as from text', async () => {
    const cols: [string, string[], string][] = [
      ['a', ['1', '-2147483648', '+5'], 'int4'],
      ['b', ['2147483648', '-9'], 'int8'],
      ['c', ['9223372036854775808', '1'], 'numeric'],
      ['d', ['007', '1'], 'text'],
      ['e', ['1.5', '.5', '-0', '1e5', '2.'], 'float8'],
      ['f', ['2024-02-29', '1999-01-01'], 'date'],
      ['g', ['2024-02-30', '2024-01-01'], 'text'],
      ['h', ['2024-01-01 23:59:59.123', '2024-01-01'], 'timestamp'],
      ['i', ['2024-01-01 24:00:00', '2024-01-01 00:00:00'], 'timestamp'],
      ['j', ['1', 'NA', '2'], 'int4'],
      ['k', ['1.5', 'x'], 'text'],
      ['l', ['-', '1'], 'text'],
    ];
    const rows = Math.max(...cols.map((c) => c[1].length));
    let text = cols.map((c) => c[0]).join(',') + '\n';
    for (let r = 0; r < rows; r++) text += cols.map((c) => c[1][r] ?? '').join(',') + '\n';
    const f = write('kinds.csv', text);
    const r = await db.query(`SELECT * FROM read_csv('${f}', nullstr => 'NA')`);
    expect(r.columns.map((c) => c.type.name)).toEqual(cols.map((c) => c[2]));
  });

  it('read_csv_rejects lists what ignore_errors drops', async () => {
    const f = write('rej.csv', 'a,b\n1,2\nx,3\n4\n5,6,7\n8,9\n');
    expect(await quireRows(`SELECT a, b FROM read_csv('${f}', ignore_errors => true, sample_size => 1)`)).toEqual([
      [1, 2],
      [8, 9],
    ]);
    const r = await db.query(`SELECT line, column_name, sqlstate, message, record FROM read_csv_rejects('${f}', sample_size => 1) ORDER BY line`);
    expect(r.rows).toEqual([
      [3, 'a', '22P02', 'invalid input syntax for type integer: "x"', 'x,3'],
      [4, null, '22P04', 'missing data for column "b"', '4'],
      [5, null, '22P04', 'extra data after last expected column', '5,6,7'],
    ]);
  });

  it('converts only the columns a query reads', async () => {
    const f = write('proj.csv', 'a,b,c\n1,2,3\n4,5,6\n');
    const plan = (await db.query(`EXPLAIN (FORMAT QUIRE) SELECT c, a FROM read_csv('${f}') WHERE a > 1`)).rows.map((r) => r[0]).join('\n');
    expect(plan).toContain('columns: [a, c]');
    expect(await quireRows(`SELECT c, a FROM read_csv('${f}') WHERE a > 1`)).toEqual([[6, 4]]);
    // A bad value in a column the query does not read is not converted, so it does not fail.
    const g = write('proj2.csv', 'a,b\n1,2\n3,x\n');
    expect(await quireRows(`SELECT sum(a) FROM read_csv('${g}', columns => 'a int, b int', header => true)`)).toEqual([[4]]);
  });

  it('is interrupted by statement timeouts and cancellation', async () => {
    const f = write('slow.csv', generated(200000, 5));
    await expect(db.query(`SELECT count(*) FROM read_csv('${f}', buffer_size => 256)`, [], { timeoutMs: 30 })).rejects.toMatchObject({ code: '57014' });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 30);
    await expect(db.query(`SELECT count(*) FROM read_csv('${f}', buffer_size => 256)`, [], { signal: ac.signal })).rejects.toMatchObject({ code: '57014' });
  });
});

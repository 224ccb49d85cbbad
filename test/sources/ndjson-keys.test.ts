/**
 * read_json's key kernel (ndjson-key-kernel.ts), which finds each value's column by its key, so
 * records in any key order or leaving keys out are read in WebAssembly: against DuckDB reading the
 * same files, and against the JavaScript path (no kernels) for what DuckDB refuses (a key named twice:
 * the last value counts, as JSON.parse and PostgreSQL's jsonb keep it). Files mix key orders, missing,
 * extra and repeated keys, escapes in keys and values, nested values, spacing, CRLF and blank lines;
 * tiny read chunks split lines and UTF-8 sequences.
 */
import { describe, expect, it } from 'vitest';
import { getValue } from '../../src/common/column.js';
import { T, type Field } from '../../src/common/types.js';
import { NdjsonColumns, NdjsonSchema } from '../../src/storage/ndjson-scanner.js';
import { NdjsonShape } from '../../src/storage/ndjson-shape.js';
import { ndjsonKernels } from '../../src/storage/ndjson-kernels.js';
import { rng } from '../common/pg-helper.js';
import { ndjsonFixture, readInTurns } from './ndjson-fixture.js';

const fx = ndjsonFixture('quire-ndjson-keys-');
const { file, quireRows, duckRows, readBody } = fx;

const INTS = ['0', '-0', '7', '-42', '9007199254740991', '-9007199254740991', '1234567890123'];
const FLOATS = ['1.5', '-0.25', '0.7913460577595683', '0.0', '1e10', '2.5E-3', '-1.7976931348623157e308', '5e-324', '123456.789012345678', '0.1', '12345678901234567.0'];
const STRINGS = ['plain', '', 'cat0', 'cat1', 'café', '日本語テキスト', 'emoji 😀 pair', 'ü'.repeat(20), 'a somewhat longer ascii string past the cache', 'quote \\" inside', 'caf\\u00e9', 'line\\nbreak', 'comma, brace } colon :'];

const FIELDS: Field[] = [
  { name: 'id', type: T.int8 },
  { name: 'i', type: T.int8 },
  { name: 'f', type: T.float8 },
  { name: 's', type: T.text },
  { name: 'b', type: T.bool },
  { name: 'é名', type: T.text },
];

/**
 * Records naming FIELDS' keys in a random order each, each key left out now and then; rarely a key
 * the sample never saw, a nested value in a key no column reads, a key spelled with an escape, other
 * spacing, CRLF, a blank line. `dup`: now and then a key named twice.
 */
function mixedFile(seed: number, rows: number, dup: boolean): string {
  const r = rng(seed);
  const pick = <X>(xs: readonly X[]): X => xs[Math.floor(r() * xs.length)]!;
  const lines: string[] = [];
  for (let i = 0; i < rows; i++) {
    let vals: [string, string][] = [
      ['id', String(i)],
      ['i', r() < 0.1 ? 'null' : pick(INTS)],
      ['f', r() < 0.1 ? 'null' : pick(FLOATS)],
      ['s', r() < 0.1 ? 'null' : `"${pick(STRINGS)}"`],
      ['b', pick(['true', 'false', 'null'])],
      ['é名', `"${pick(STRINGS)}"`],
    ];
    // Any order; keys other than id left out at random.
    for (let k = vals.length - 1; k > 0; k--) {
      const j = Math.floor(r() * (k + 1));
      [vals[k], vals[j]] = [vals[j]!, vals[k]!];
    }
    vals = vals.filter(([k]) => k === 'id' || r() > 0.15);
    const x = r();
    if (x < 0.01) vals.push(['late', '3']); // a key the sample did not see
    else if (x < 0.02) vals.push(['nest', '{"n": [1, {"m": "}"}]}']);
    else if (x < 0.03) vals = vals.map(([k, v]) => [k === 'i' ? '\\u0069' : k, v]); // "i" spelled with an escape
    else if (dup && x < 0.06) vals.push(['s', `"again${i % 3}"`]);
    const spaced = r() < 0.05;
    let line = `{${vals.map(([k, v]) => `"${k}"${spaced ? ' : ' : ':'}${v}`).join(spaced ? ' ,\t' : ',')}}`;
    if (r() < 0.02) line = ` ${line} `;
    if (r() < 0.02) line += '\r';
    lines.push(line);
    if (r() < 0.01) lines.push('');
  }
  // The sample sees every key of FIELDS (and only those) first.
  return `{"id":-1,"i":1,"f":0.5,"s":"x","b":true,"é名":"y"}\n` + lines.join('\n') + '\n';
}

describe('read_json key kernel', () => {
  it('is available here (WebAssembly), so the tests below exercise it', () => {
    expect(ndjsonKernels()).not.toBeNull();
  });

  it('agrees with DuckDB on records in any key order with keys left out, extra, nested or escaped', async () => {
    for (const seed of [1, 2, 3]) {
      const f = file(mixedFile(seed, 5000, false));
      const cols = 'id, i, f, s, b, "é名"';
      const q = await quireRows(f, cols);
      expect(q.length).toBe(5001);
      expect(q).toEqual(await duckRows(f, cols));
      // Projections: the same values, unread ones checked and skipped.
      expect(await quireRows(f, 'id, s')).toEqual(q.map((r) => [r[0], r[3]]));
      expect(await quireRows(f, 'f, id, "é名"')).toEqual(q.map((r) => [r[2], r[0], r[5]]));
    }
  });

  it('gives the rows of the JavaScript path for any chunk size, keys named twice included (the last value counts)', async () => {
    const f = file(mixedFile(4, 3000, true));
    const fields = [...FIELDS, { name: 'late', type: T.int8 }, { name: 'nest', type: T.text }];
    const all = [0, 1, 2, 3, 4, 5];
    const plain = await readBody(f, fields, all, 1 << 20, false);
    expect(plain.length).toBe(3001);
    expect(plain.some((r) => typeof r[3] === 'string' && r[3].startsWith('again'))).toBe(true);
    for (const size of [1 << 20, 1 << 16, 4093, 61, 7]) expect(await readBody(f, fields, all, size, true)).toEqual(plain);
    expect(await readBody(f, fields, [5, 3, 0], 333, true)).toEqual(plain.map((r) => [r[5], r[3], r[0]]));
    // Through SQL: the repeated key's last value, as JSON.parse and jsonb keep it.
    const rows = await quireRows(f, 'id, s');
    expect(rows).toEqual(plain.map((r) => [r[0], r[3]]).sort((a, b) => (a[0] as number) - (b[0] as number)));
  });

  it('reads any key order and leaves a missing key NULL; stops at a key it does not know, a repeated key, an escape', () => {
    const fields: Field[] = [
      { name: 'a', type: T.int8 },
      { name: 'b', type: T.text },
      { name: 'c', type: T.float8 },
    ];
    const schema = new NdjsonSchema(fields, [0, 1, 2]);
    const keys = NdjsonShape.byKeys(schema)!;
    expect(keys).not.toBeNull();
    const text = '{"a":1,"b":"x","c":0.5}\n{"c":1.5,"a":2}\n{ "b" : "z" }\n{}\n\t{"b":"w","a":4,"c":-2}\r\n{"a":5,"d":1}\n';
    const buf = Buffer.from(text);
    const out = new NdjsonColumns([T.int8, T.text, T.float8], 16);
    expect(keys.read(buf, 0, buf.length, schema, out, 0, 16)).toBe(5);
    expect(keys.next).toBe(text.indexOf('{"a":5'));
    const cols = out.finish(5);
    const rows = [0, 1, 2, 3, 4].map((r) => cols.map((c) => getValue(c, r)));
    expect(rows).toEqual([
      [1, 'x', 0.5],
      [2, null, 1.5],
      [null, 'z', null],
      [null, null, null],
      [4, 'w', -2],
    ]);
    const stops = (line: string): number => {
      const b = Buffer.from(line + '\n');
      return keys.read(b, 0, b.length, schema, new NdjsonColumns([T.int8, T.text, T.float8], 4), 0, 4);
    };
    expect(stops('{"a":1,"a":2}')).toBe(0);
    expect(stops('{"\\u0061":1}')).toBe(0);
    expect(stops('{"a":1,"b":"x\\ty"}')).toBe(0);
    // A nested value is read (checked as JSON); a malformed one stops the kernel.
    expect(stops('{"a":1,"b":{"c":2}}')).toBe(1);
    expect(stops('{"a":1,"b":{"c":2,}}')).toBe(0);
    expect(stops('{"a":1,"b":[1 2]}')).toBe(0);
    expect(stops('{"a":1,"b":"x"} trailing')).toBe(0);
    expect(stops('{"a":1,}')).toBe(0);
    expect(stops('{"a":1 "b":"x"}')).toBe(0);
    expect(stops('{"ab":1}')).toBe(0);
    expect(stops('{"abcdefgh":1}')).toBe(0);
    expect(stops('{"a\\"":1}')).toBe(0);
    expect(stops('{"a":1,"b":"x","c":2}')).toBe(1);
    // A line cut by the end of the bytes is not read.
    expect(keys.read(buf, 0, text.indexOf('\n'), schema, out, 0, 16)).toBe(0);
  });

  it('finds keys whose hashes share a table entry, and many keys', async () => {
    // "Aa" and "BB" hash alike (h * 31 + byte), so do their longer repeats; names that share a
    // prefix or are one byte apart in length; 64 keys fill the table's probes.
    const long = ['AaAaAaAa', 'BBBBBBBB', 'AaAaAaBB', 'BBAaAaAaAaAaAaAaAa', 'BBBBAaAaAaAaAaAaAa', 'seven77', 'eight888', 'eight8889', 'a_rather_long_column_name_past_one_word', 'ü_名前_key'];
    const names = ['Aa', 'BB', 'AaAa', 'BBBB', 'AaBB', 'BBAa', ...long, ...Array.from({ length: 47 }, (_, i) => `k${i}`)];
    const r = rng(8);
    const lines = Array.from({ length: 3000 }, (_, i) => {
      const parts = names.filter(() => r() > 0.3).map((k, j) => `"${k}":${(i * 31 + j) % 97}`);
      parts.push(`"id":${i}`);
      for (let k = parts.length - 1; k > 0; k--) {
        const j = Math.floor(r() * (k + 1));
        [parts[k], parts[j]] = [parts[j]!, parts[k]!];
      }
      return `{${parts.join(',')}}`;
    });
    const f = file(`{"id":-1,${names.map((k) => `"${k}":0`).join(',')}}\n` + lines.join('\n') + '\n');
    const cols = ['id', ...names].map((k) => `"${k}"`).join(', ');
    expect(await quireRows(f, cols)).toEqual(await duckRows(f, cols));
    // The kernel itself reads every one of these records (none left to the general path), as JSON.parse does.
    const all = ['id', ...names];
    const schema = new NdjsonSchema(all.map((name) => ({ name, type: T.int8 })), all.map((_, i) => i));
    const keys = NdjsonShape.byKeys(schema)!;
    const buf = Buffer.from(lines.slice(0, 100).join('\n') + '\n');
    const out = new NdjsonColumns(all.map(() => T.int8), 100);
    expect(keys.read(buf, 0, buf.length, schema, out, 0, 100)).toBe(100);
    const got = out.finish(100);
    lines.slice(0, 100).forEach((l, r) => {
      const rec = JSON.parse(l) as Record<string, number>;
      expect(all.map((_, c) => getValue(got[c]!, r))).toEqual(all.map((k) => rec[k] ?? null));
    });
  });

  it('keeps UTF-8 sequences and lines whole across chunk boundaries', async () => {
    const lines = Array.from({ length: 4000 }, (_, i) => (i % 2 === 0 ? `{"id":${i},"t":"${'é'.repeat(i % 9)}日本${i % 5}"}` : `{"t":"😀${'ü'.repeat(i % 7)}","id":${i}}`));
    const f = file(lines.join('\n') + '\n');
    const fields: Field[] = [
      { name: 'id', type: T.int8 },
      { name: 't', type: T.text },
    ];
    const plain = await readBody(f, fields, [0, 1], 1 << 20, false);
    for (const size of [4093, 257, 5]) expect(await readBody(f, fields, [0, 1], size, true)).toEqual(plain);
    expect(await quireRows(f, 'id, t')).toEqual(await duckRows(f, 'id, t'));
  });

  it('names the file and line of a malformed record among mixed orders', async () => {
    const good = (i: number): string => (i % 2 === 0 ? `{"id":${i},"a":${i % 10},"s":"v${i % 4}"}` : `{"s":"v${i % 4}","id":${i}}`);
    for (const broken of ['{"a":07,"id":3}', '{"s":"x","a":-}', '{"a":1.,"id":3}', '{"id":3,"a":1e}', '{"s":"x","id":3,}', '{"a":tru,"id":3}', '{"id":3 "a":1}', '{"id":3,"s":"x"}}']) {
      const lines = Array.from({ length: 2500 }, (_, i) => good(i));
      lines[1800] = broken;
      const f = file(lines.join('\n') + '\n');
      await expect(fx.db.query(`select id, a, s from read_json('${f}')`)).rejects.toMatchObject({ code: '22P02', detail: expect.stringContaining('line 1801') });
    }
    const withText = Array.from({ length: 2500 }, (_, i) => good(i));
    withText[2100] = '{"s":"v0","a":"four","id":2100}';
    const f = file(withText.join('\n') + '\n');
    await expect(fx.db.query(`select * from read_json('${f}', sample_size => 100)`)).rejects.toMatchObject({
      code: '22P02',
      message: 'invalid input syntax for type bigint: "four"',
      detail: expect.stringMatching(new RegExp(`read_json "${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}", line 2101`)),
    });
    // Invalid UTF-8 in a read and in an unread string of a reordered record.
    const bad = Buffer.concat([Buffer.from(Array.from({ length: 2000 }, (_, i) => good(i)).join('\n') + '\n{"s":"'), Buffer.from([0xc3, 0x28]), Buffer.from('","a":1,"id":2000}\n')]);
    const g = file(bad);
    await expect(fx.db.query(`select id, s from read_json('${g}')`)).rejects.toMatchObject({ code: '22021' });
    await expect(fx.db.query(`select id, a from read_json('${g}')`)).rejects.toMatchObject({ code: '22021' });
  });

  it('keeps its string caches equal to their strings: mixed orders, refused records, two readers at once', async () => {
    const r = rng(31);
    const word = (): string => {
      const len = Math.floor(r() * 40);
      let w = '';
      for (let i = 0; i < len; i++) w += String.fromCharCode(97 + Math.floor(r() * 3));
      return w;
    };
    const pool = Array.from({ length: 3000 }, word);
    const make = (rows: number): string =>
      Array.from({ length: rows }, (_, i) => {
        const parts = [`"id":${i}`, `"a":"${pool[r() < 0.3 ? i % 40 : Math.floor(r() * pool.length)]!}"`, `"b":${r() < 0.05 ? 'null' : `"${pool[Math.floor(r() * 50)]!}"`}`, `"k":${r() < 0.01 ? '4.0' : String(i % 9)}`];
        if (r() < 0.5) parts.reverse();
        // Now and then a repeated key after cached strings (the record is refused after the cache took them).
        if (r() < 0.01) parts.push(`"a":"${pool[i % 11]!}"`);
        return `{${parts.join(',')}}`;
      }).join('\n') + '\n';
    const fields: Field[] = [
      { name: 'id', type: T.int8 },
      { name: 'a', type: T.text },
      { name: 'b', type: T.text },
      { name: 'k', type: T.int8 },
    ];
    const f = file(make(6000));
    const g = file(make(6000));
    const cols = [0, 1, 2, 3];
    const plainF = await readBody(f, fields, cols, 1 << 20, false);
    const plainG = await readBody(g, fields, cols, 1 << 20, false);
    expect(await readBody(f, fields, cols, 4093, true)).toEqual(plainF);
    const [outF, outG] = await readInTurns(f, cols, g, [2, 1, 0, 3], fields, 1 << 16);
    expect(outF).toEqual(plainF);
    expect(outG).toEqual(plainG.map((row) => [row[2], row[1], row[0], row[3]]));
  });

  it('infers the columns and types JSON.parse gives from records in any key order, keys first met late included', async () => {
    const r = rng(41);
    const keys = ['id', 'n', 'x', '10', 'late', 'txt', '2', 'flag'];
    const values: Record<string, string[]> = {
      id: ['1', '2', '3'],
      n: ['1', 'null'],
      x: ['1.0', '1e2', '-3'],
      '10': ['"a"', '1'],
      late: ['true', 'false'],
      txt: ['"ü"', '"b"', 'null'],
      '2': ['null'],
      flag: ['true', 'null'],
    };
    const lines = Array.from({ length: 3000 }, (_, i) => {
      // "late" only from line 700 on, "flag" only after 2000; keys in a random order, some left out.
      const parts = keys.filter((k) => (k !== 'late' || i >= 700) && (k !== 'flag' || i >= 2000) && (k === 'id' || r() > 0.2)).map((k) => {
        // Kinds that change only in lines the kernels read: n turns float8 late, late turns text.
        if (k === 'n' && i >= 1500 && i % 100 === 7) return '"n":2.5';
        if (k === 'late' && i >= 2600 && i % 50 === 3) return '"late":1';
        return `"${k}":${values[k]![Math.floor(r() * values[k]!.length)]!}`;
      });
      for (let k = parts.length - 1; k > 0; k--) {
        const j = Math.floor(r() * (k + 1));
        [parts[k], parts[j]] = [parts[j]!, parts[k]!];
      }
      return `{${parts.join(',')}}`;
    });
    // What JSON.parse of every sampled line gives: keys in order of first appearance (JavaScript's
    // key order within a record), kinds joined.
    const kinds = new Map<string, string>();
    const kindOf = (v: unknown): string => (v === null ? 'null' : typeof v === 'boolean' ? 'bool' : typeof v === 'number' ? (Number.isSafeInteger(v) ? 'int8' : 'float8') : 'text');
    const joinKinds = (a: string, b: string): string => (a === b || b === 'null' ? a : a === 'null' ? b : (a === 'int8' && b === 'float8') || (a === 'float8' && b === 'int8') ? 'float8' : 'text');
    for (const l of lines) {
      const rec = JSON.parse(l) as Record<string, unknown>;
      for (const k of Object.keys(rec)) kinds.set(k, kinds.has(k) ? joinKinds(kinds.get(k)!, kindOf(rec[k])) : kindOf(rec[k]));
    }
    const want = [...kinds].map(([k, t]) => `${k}:${t === 'null' ? 'text' : t}`);
    const f = file(lines.join('\n') + '\n');
    const got = (await fx.db.query(`select * from read_json('${f}') limit 1`)).columns.map((c) => `${c.name}:${c.type.name}`);
    expect(got).toEqual(want);
    expect(got).toContain('flag:bool');
    expect(got).toContain('x:int8');
    expect(got).toContain('n:float8');
    expect(got).toContain('late:text');
  });
});

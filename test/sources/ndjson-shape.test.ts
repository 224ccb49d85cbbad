/**
 * read_json's WebAssembly path for records that repeat one line's shape (ndjson-shape.ts): against
 * DuckDB reading the same files and against the JavaScript path reading them without the kernel.
 * Files mostly keep one shape and now and then break it (another key order, a missing or extra
 * key, a nested value in a read and an unread key, escapes, spacing, CRLF, blank lines), so the
 * kernel stops and resumes often; tiny read chunks split lines and UTF-8 sequences.
 */
import { describe, expect, it } from 'vitest';
import { getValue } from '../../src/common/column.js';
import { T, type Field } from '../../src/common/types.js';
import { NdjsonColumns, NdjsonSchema } from '../../src/storage/ndjson-scanner.js';
import { NdjsonShape } from '../../src/storage/ndjson-shape.js';
import { ndjsonKernels } from '../../src/storage/ndjson-kernels.js';
import { rng } from '../common/pg-helper.js';
import { ndjsonFixture, readInTurns } from './ndjson-fixture.js';

const fx = ndjsonFixture('quire-ndjson-shape-');
const { file, quireRows, duckRows, readBody } = fx;

const INTS = ['0', '-0', '7', '-42', '123456789', '9007199254740991', '-9007199254740991', '1234567890123'];
const FLOATS = ['1.5', '-0.25', '0.7913460577595683', '0.0', '-0.0', '1e10', '2.5E-3', '-1.7976931348623157e308', '5e-324', '123456.789012345678', '9007199254740993.5', '0.1', '1.25e+2', '12345678901234567.0', '99999999999999999999.5'];
const STRINGS = ['plain', '', 'cat0', 'café', '日本語テキスト', 'emoji 😀 pair', 'ü'.repeat(20), 'a somewhat longer ascii string past the cache', 'quote \\" inside', 'caf\\u00e9', 'escaped pair \\ud83d\\ude00', 'line\\nbreak'];

/** Lines of one shape ({"id":…,"i":…,"f":…,"s":…,"b":…}), compact or spaced, breaking it now and then. */
function shapedFile(seed: number, rows: number, spaced: boolean): string {
  const r = rng(seed);
  const pick = <X>(xs: readonly X[]): X => xs[Math.floor(r() * xs.length)]!;
  const sep = spaced ? ', ' : ',';
  const colon = spaced ? ': ' : ':';
  const lines: string[] = [];
  for (let i = 0; i < rows; i++) {
    const vals: [string, string][] = [
      ['id', String(i)],
      ['i', r() < 0.1 ? 'null' : pick(INTS)],
      ['f', r() < 0.1 ? 'null' : pick(FLOATS)],
      ['s', r() < 0.1 ? 'null' : `"${pick(STRINGS)}"`],
      ['b', pick(['true', 'false', 'null'])],
    ];
    const x = r();
    if (x < 0.02) vals.reverse(); // another key order
    else if (x < 0.04) vals.splice(2, 1); // a missing key
    else if (x < 0.05) vals.push(['extra', '{"n": [1, {"m": "}"}]}']); // a nested value in a key no column reads
    else if (x < 0.06) vals.push(['x', '[1,2]']);
    let line = `{${vals.map(([k, v]) => `"${k}"${colon}${v}`).join(sep)}}`;
    if (r() < 0.02) line = line.replace('{', '{ '); // other spacing
    if (r() < 0.02) line += '\r';
    lines.push(line);
    if (r() < 0.01) lines.push('');
  }
  return lines.join('\n') + '\n';
}

const FIELDS: Field[] = [
  { name: 'id', type: T.int8 },
  { name: 'i', type: T.int8 },
  { name: 'f', type: T.float8 },
  { name: 's', type: T.text },
  { name: 'b', type: T.bool },
];

describe('read_json shape kernel', () => {
  it('is available here (WebAssembly), so the tests below exercise it', () => {
    expect(ndjsonKernels()).not.toBeNull();
  });

  it('agrees with DuckDB on files that mostly keep one shape, compact and spaced', async () => {
    for (const [seed, spaced] of [[1, false], [2, true], [3, false]] as const) {
      const f = file(shapedFile(seed, 4000, spaced));
      const cols = 'id, i, f, s, b';
      const q = await quireRows(f, cols);
      expect(q.length).toBe(4000);
      expect(q).toEqual(await duckRows(f, cols));
      // Projections: unread values are checked, not converted; read ones do not change.
      expect(await quireRows(f, 'id, s')).toEqual(q.map((r) => [r[0], r[3]]));
      expect(await quireRows(f, 'f, id')).toEqual(q.map((r) => [r[2], r[0]]));
    }
  });

  it('gives the rows of the JavaScript path for any chunk size (lines and UTF-8 sequences split)', async () => {
    const f = file(shapedFile(4, 1500, false));
    const all = [0, 1, 2, 3, 4];
    const plain = await readBody(f, FIELDS, all, 1 << 20, false);
    expect(plain.length).toBe(1500);
    for (const size of [1 << 20, 1 << 16, 4093, 64, 7]) expect(await readBody(f, FIELDS, all, size, true)).toEqual(plain);
    expect(await readBody(f, FIELDS, [3, 0], 333, true)).toEqual(plain.map((r) => [r[3], r[0]]));
    expect(await readBody(f, FIELDS, [], 1 << 20, true)).toEqual(plain.map(() => []));
  });

  it('reads integers, doubles and strings of every form exactly as DuckDB', async () => {
    const r = rng(9);
    const lines: string[] = [];
    for (let i = 0; i < 20000; i++) {
      // Doubles from 1 to 20 significant digits, with and without exponent; integers up to 2^53.
      let d = String(1 + Math.floor(r() * 9));
      for (let j = 1, m = 1 + Math.floor(r() * 20); j < m; j++) d += String(Math.floor(r() * 10));
      const at = 1 + Math.floor(r() * d.length);
      const num = at === d.length ? d : `${d.slice(0, at)}.${d.slice(at)}`;
      const f = r() < 0.1 ? `${num}e${Math.floor(r() * 40) - 20}` : r() < 0.5 ? `-${num}` : num;
      const k = Math.floor((r() - 0.5) * 2 * Number.MAX_SAFE_INTEGER);
      lines.push(`{"id":${i},"f":${f},"k":${k},"t":"${'x'.repeat(Math.floor(r() * 40))}é${i % 13}"}`);
    }
    const f = file(lines.join('\n') + '\n');
    expect(await quireRows(f, 'id, f, k, t')).toEqual(await duckRows(f, 'id, f, k, t'));
  });

  it('learns no shape from a line it cannot take, and stops at the first line of another shape', () => {
    const fields: Field[] = [
      { name: 'a', type: T.int8 },
      { name: 'b', type: T.text },
    ];
    const schema = new NdjsonSchema(fields, [0, 1]);
    const learn = (line: string): NdjsonShape | null => {
      const b = Buffer.from(line + '\n');
      return NdjsonShape.learn(b, 0, b.length - 1, schema);
    };
    expect(learn('{"a":1,"b":"x"}')).not.toBeNull();
    expect(learn('  { "a" : 1 , "b" : "x" }  ')).not.toBeNull();
    // Nested values are the kernel's too (it checks them); a bracket left open is not a shape.
    expect(learn('{"a":1,"b":{"c":2}}')).not.toBeNull();
    expect(learn('{"a":[1],"b":"x"}')).not.toBeNull();
    expect(learn('{"a":[1,"]"],"b":"x"}')).not.toBeNull();
    expect(learn('{"a":[1,"b":"x"}')).toBeNull();
    {
      // Read by the kernel, not handed back: an unread nested value and a read one (as JSON text).
      const nestedText = '{"a":1,"b":{"c": [2, "x", {}]}, "z": [true, null, -1.5e3, "\\u00e9"]}\n'.repeat(3);
      const nb = Buffer.from(nestedText);
      const nestedShape = learn(nestedText.slice(0, nestedText.indexOf('\n')))!;
      const nout = new NdjsonColumns([T.int8, T.text], 4);
      expect(nestedShape.read(nb, 0, nb.length, schema, nout, 0, 4)).toBe(3);
      const ncols = nout.finish(3);
      expect([getValue(ncols[0]!, 2), getValue(ncols[1]!, 2)]).toEqual([1, '{"c":[2,"x",{}]}']);
    }
    expect(learn('{"a\\u0062":1}')).toBeNull();
    expect(learn('{"a":1,"b":"x"} trailing')).toBeNull();
    const text = '{"a":1,"b":"x"}\n{"a":2,"b":"y"}\n{"b":"z","a":3}\n{"a":4,"b":"w"}\n';
    const buf = Buffer.from(text);
    const shape = learn('{"a":0,"b":""}')!;
    const out = new NdjsonColumns([T.int8, T.text], 16);
    expect(shape.read(buf, 0, buf.length, schema, out, 0, 16)).toBe(2);
    expect(shape.next).toBe(text.indexOf('{"b"'));
    expect(shape.read(buf, shape.next, buf.length, schema, out, 2, 16)).toBe(0);
    // At most `max` records, and a line cut by the end of the bytes is not read.
    expect(shape.read(buf, 0, buf.length, schema, out, 0, 1)).toBe(1);
    expect(shape.read(buf, 0, text.indexOf('\n') + 5, schema, out, 0, 16)).toBe(1);
    const cols = out.finish(2);
    expect([getValue(cols[0]!, 0), getValue(cols[1]!, 0), getValue(cols[0]!, 1), getValue(cols[1]!, 1)]).toEqual([1, 'x', 2, 'y']);
  });

  it('hands values its column does not take to the general path (converted or refused as before)', async () => {
    const good = Array.from({ length: 3000 }, (_, i) => `{"id":${i},"a":${i % 10},"s":"v${i % 4}"}`);
    // 4.0 in a bigint column reads as 4 (JSON.parse's number); a string there is refused with its line.
    const withFloat = [...good];
    withFloat[2000] = '{"id":2000,"a":4.0,"s":"v0"}';
    // A record of another shape right after the refused one: its missing key reads NULL.
    withFloat[2001] = '{"a":5,"s":"v1"}';
    const f = file(withFloat.join('\n') + '\n');
    const q = await quireRows(f, 'id, a, s');
    expect(q[2000]).toEqual([2000, 4, 'v0']);
    expect(q[2998]).toEqual([2999, 9, 'v3']);
    expect(q[2999]).toEqual([null, 5, 'v1']);
    expect(q).toEqual(await duckRows(f, 'id, a, s'));
    const withText = [...good];
    withText[2500] = '{"id":2500,"a":"four","s":"v0"}';
    await expect(fx.db.query(`select * from read_json('${file(withText.join('\n') + '\n')}', sample_size => 100)`)).rejects.toMatchObject({
      code: '22P02',
      message: 'invalid input syntax for type bigint: "four"',
      detail: expect.stringContaining('line 2501'),
    });
  });

  it('names the line of a malformed record in a shaped file', async () => {
    const good = (i: number): string => `{"id":${i},"a":${i % 10},"s":"v${i % 4}"}`;
    for (const broken of ['{"id":3,"a":07,"s":"x"}', '{"id":3,"a":-,"s":"x"}', '{"id":3,"a":1.,"s":"x"}', '{"id":3,"a":1e,"s":"x"}', '{"id":3,"a":7,"s":"x",}', '{"id":3,"a":tru,"s":"x"}', '{"id":3,"a":nul,"s":"x"}']) {
      const lines = Array.from({ length: 2500 }, (_, i) => good(i));
      lines[1800] = broken;
      await expect(fx.db.query(`select id, a, s from read_json('${file(lines.join('\n') + '\n')}')`)).rejects.toMatchObject({ code: '22P02', detail: expect.stringContaining('line 1801') });
    }
    // Invalid UTF-8 in a read and in an unread string.
    const bad = Buffer.concat([Buffer.from(Array.from({ length: 2000 }, (_, i) => good(i)).join('\n') + '\n{"id":2000,"a":1,"s":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')]);
    const f = file(bad);
    await expect(fx.db.query(`select id, s from read_json('${f}')`)).rejects.toMatchObject({ code: '22021' });
    await expect(fx.db.query(`select id, a from read_json('${f}')`)).rejects.toMatchObject({ code: '22021' });
  });

  it('reads a last line without its newline and files whose every line has another shape', async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `{"id":${i},"s":"q${i % 3}"}`);
    const f = file(lines.join('\n'));
    expect((await quireRows(f, 'id, s')).length).toBe(3000);
    const r = rng(5);
    const mixed = Array.from({ length: 3000 }, (_, i) => {
      const parts = [`"id":${i}`, `"a":${i % 7}`, `"s":"w${i % 5}"`];
      for (let k = parts.length - 1; k > 0; k--) {
        const j = Math.floor(r() * (k + 1));
        [parts[k], parts[j]] = [parts[j]!, parts[k]!];
      }
      return `{${parts.join(',')}}`;
    });
    const g = file(mixed.join('\n') + '\n');
    expect(await quireRows(g, 'id, a, s')).toEqual(await duckRows(g, 'id, a, s'));
  });
  it('infers the types JSON.parse gives, from the kernel tags where lines keep one shape', async () => {
    // Per key: values and the type their JSON.parse numbers make (a safe integer is int8, so 1.0 and 1e2 are).
    const cols: [string, string[], string][] = [
      ['ints', ['1.0', '-0.0', '1e2', '3', '-7'], 'int8'],
      ['floats', ['1.5', '2', '-0.25'], 'float8'],
      ['wide', ['12345678901234567.0', '7'], 'float8'],
      ['wide_int', ['1.00000000000000000', '2'], 'int8'],
      ['huge', ['1e400', '1'], 'float8'],
      ['long', ['123456789012345678901234', '5'], 'float8'],
      ['mixed', ['1', '"x"'], 'text'],
      ['nulls', ['null'], 'text'],
      ['bools', ['true', 'null', 'false'], 'bool'],
      ['texts', ['"a"', '"ü"', 'null'], 'text'],
    ];
    const lines = (reorder: boolean): string =>
      Array.from({ length: 600 }, (_, i) => {
        const parts = cols.map(([k, vs]) => `"${k}":${vs[i % vs.length]}`);
        // Another key order on every line: no shape, every line through JSON.parse.
        if (reorder && i % 2 === 1) parts.reverse();
        return `{${parts.join(',')}}`;
      }).join('\n') + '\n';
    const typesOf = async (text: string): Promise<string[]> => (await fx.db.query(`select * from read_json('${file(text)}')`)).columns.map((c) => `${c.name}:${c.type.name}`);
    const want = cols.map(([k, , t]) => `${k}:${t}`);
    expect(await typesOf(lines(false))).toEqual(want);
    expect(await typesOf(lines(true))).toEqual(want);
    // Keys JavaScript orders first (integer-like) keep JSON.parse's order; a key named twice is not the kernel's.
    expect(await typesOf('{"b":1,"2":"x","a":true}\n{"b":2,"2":"y","a":false}\n')).toEqual(['2:text', 'b:int8', 'a:bool']);
    expect(await typesOf('{"a":"x","a":1}\n{"a":"y","a":2}\n')).toEqual(['a:int8']);
    // No keys in any sampled record, and a sample of blank lines, are refused as before.
    await expect(typesOf('{}\n{}\n')).rejects.toMatchObject({ code: '22P02', message: expect.stringContaining('no objects with keys found') });
  });
  it('keeps the kernel string caches equal to their strings: collisions, refused records, two readers at once', async () => {
    const r = rng(21);
    const word = (): string => {
      const n = Math.floor(r() * 40); // 0 … 39 bytes: cached up to 31, longer ones not
      let w = '';
      for (let i = 0; i < n; i++) w += String.fromCharCode(97 + Math.floor(r() * 3));
      return w;
    };
    const pool = Array.from({ length: 3000 }, word);
    const make = (rows: number): string =>
      Array.from({ length: rows }, (_, i) => {
        const a = r() < 0.3 ? `"${pool[i % 40]!}"` : `"${pool[Math.floor(r() * pool.length)]!}"`;
        const b = r() < 0.05 ? 'null' : `"${pool[Math.floor(r() * 50)]!}"`;
        // Now and then a value the int column refuses (the kernel's records after it go unconverted), or another shape.
        const k = r() < 0.01 ? '4.0' : String(i % 9);
        if (r() < 0.01) return `{"b":${b},"id":${i},"a":${a},"k":${k},"u":"${pool[i % 7]!}"}`;
        return `{"id":${i},"a":${a},"u":"${pool[i % 7]!}","b":${b},"k":${k}}`;
      }).join('\n') + '\n';
    const fields: Field[] = [
      { name: 'id', type: T.int8 },
      { name: 'a', type: T.text },
      { name: 'u', type: T.text },
      { name: 'b', type: T.text },
      { name: 'k', type: T.int8 },
    ];
    const f = file(make(6000));
    const g = file(make(6000));
    const cols = [0, 1, 3, 4];
    const plainF = await readBody(f, fields, cols, 1 << 20, false);
    const plainG = await readBody(g, fields, cols, 1 << 20, false);
    expect(plainF.filter((row) => row[3] === 4).length).toBeGreaterThan(20);
    for (const size of [1 << 20, 4093]) {
      expect(await readBody(f, fields, cols, size, true)).toEqual(plainF);
      expect(await readBody(f, fields, [3, 1], size, true)).toEqual(plainF.map((row) => [row[2], row[1]]));
    }
    // Two readers taking turns batch by batch share the kernel and its caches.
    const [outF, outG] = await readInTurns(f, cols, g, [3, 1, 0, 4], fields, 1 << 16);
    expect(outF).toEqual(plainF);
    expect(outG).toEqual(plainG.map((row) => [row[2], row[1], row[0], row[3]]));
    expect(await quireRows(f, 'id, a, b, k')).toEqual(await duckRows(f, 'id, a, b, k'));
  });
});

describe('read_json shape kernel: nested values', () => {
  /** A random JSON value up to `depth` levels, spaced or not, with every kind of scalar and escape. */
  const nested = (r: () => number, depth: number): string => {
    const x = r();
    const sp = r() < 0.2 ? ' ' : '';
    if (depth > 0 && x < 0.3) return `{${sp}${Array.from({ length: Math.floor(r() * 4) }, (_, k) => `"k${k}${r() < 0.1 ? '\\u00e9' : ''}"${sp}:${sp}${nested(r, depth - 1)}`).join(`${sp},${sp}`)}${sp}}`;
    if (depth > 0 && x < 0.6) return `[${sp}${Array.from({ length: Math.floor(r() * 4) }, () => nested(r, depth - 1)).join(`${sp},${sp}`)}${sp}]`;
    if (x < 0.75) return `"${STRINGS[Math.floor(r() * STRINGS.length)]!}"`;
    if (x < 0.85) return r() < 0.5 ? INTS[Math.floor(r() * INTS.length)]! : FLOATS[Math.floor(r() * FLOATS.length)]!;
    return ['true', 'false', 'null', '"}"', '"]"', '"\\\\"', '"a\\/b\\b\\f\\r\\t"', '"\\uD83D\\uDE00"'][Math.floor(r() * 8)]!;
  };
  const nestedFile = (seed: number, rows: number): string => {
    const r = rng(seed);
    const lines: string[] = [];
    for (let i = 0; i < rows; i++) {
      const o = r() < 0.1 ? 'null' : r() < 0.5 ? `{"a":${i % 10},"l":[${i % 3},${nested(r, 3)}]}` : `[${nested(r, 4)}]`;
      lines.push(`{"id":${i},"obj":${o},"v":${i % 7},"s":"s${i % 5}"}`);
    }
    return lines.join('\n') + '\n';
  };
  const fields: Field[] = [
    { name: 'id', type: T.int8 },
    { name: 'obj', type: T.text },
    { name: 'v', type: T.int8 },
    { name: 's', type: T.text },
  ];

  it('skips and reads objects and arrays as the JavaScript path does, for any chunk size', async () => {
    for (const seed of [1, 2, 3]) {
      const f = file(nestedFile(seed, 4000));
      for (const cols of [[0, 2, 3], [0, 1, 3]]) {
        const plain = await readBody(f, fields, cols, 1 << 16, false);
        expect(await readBody(f, fields, cols, 1 << 16, true)).toEqual(plain);
        expect(await readBody(f, fields, cols, 4099, true)).toEqual(plain);
      }
    }
    // Against DuckDB where it reads the same: the columns beside the nested one.
    const f = file(nestedFile(4, 3000));
    expect(await quireRows(f, 'id, v, s')).toEqual(await duckRows(f, 'id, v, s'));
    // The nested value itself as JSON.stringify writes it (DuckDB's JSON keeps the file's spacing).
    const rows = (await fx.db.query(`select obj from read_json('${f}') order by id limit 50`)).rows.map((x) => x[0]);
    const lines = nestedFile(4, 50).trim().split('\n').map((l) => JSON.parse(l) as { obj: unknown });
    expect(rows).toEqual(lines.map((l) => (l.obj === null ? null : JSON.stringify(l.obj))));
  });

  it('refuses a malformed nested value as the JavaScript path does, in a column read or not', async () => {
    const broken = ['{"a":1,}', '[1,]', '[01]', '{"a" 1}', '{1:2}', '["\\x"]', '["\\u12g4"]', '["\\u001\u0010"]', '[tru]', '[1 2]', '{"a":1]', '[1}', '["a\tb"]', '[-]', '[1.]', '[1e]', '[.5]', '[+1]', '{"a":}', '[[]'];
    for (const bad of broken) {
      const lines = Array.from({ length: 2000 }, (_, i) => `{"id":${i},"obj":[${i},{"x":"y"}],"v":${i % 7},"s":"s"}`);
      lines[1500] = `{"id":1500,"obj":${bad},"v":1,"s":"s"}`;
      const f = file(lines.join('\n') + '\n');
      for (const cols of [[0, 2], [0, 1]]) {
        const plain = await readBody(f, fields, cols, 1 << 16, false).then(() => null, (e: Error) => e.message);
        expect(plain, bad).not.toBeNull();
        const kernel = await readBody(f, fields, cols, 1 << 16, true).then(() => null, (e: Error) => e.message);
        expect(kernel, bad).toBe(plain);
      }
    }
  });

  it('hands deeper nesting and invalid UTF-8 in a nested string to the general path', async () => {
    const deep = (n: number): string => '['.repeat(n) + '1' + ']'.repeat(n);
    const lines = Array.from({ length: 3000 }, (_, i) => `{"id":${i},"obj":${deep(1 + (i % 70))},"v":${i % 7},"s":"é${i % 3}"}`);
    const f = file(lines.join('\n') + '\n');
    for (const cols of [[0, 1, 2, 3], [0, 2, 3]]) expect(await readBody(f, fields, cols, 1 << 16, true)).toEqual(await readBody(f, fields, cols, 1 << 16, false));
    const good = Buffer.from(Array.from({ length: 2000 }, (_, i) => `{"id":${i},"obj":["é${i}"],"v":1,"s":"s"}`).join('\n') + '\n');
    // One byte of a two-byte sequence replaced by an ASCII letter: invalid UTF-8 inside the unread array.
    const at = good.indexOf('["é1500"]') + 2;
    const bad = Buffer.from(good);
    bad[at + 1] = 0x41;
    const f2 = file(bad);
    const plain = await readBody(f2, fields, [0, 2], 1 << 16, false).then(() => null, (e: Error) => e.message);
    expect(plain).not.toBeNull();
    expect(await readBody(f2, fields, [0, 2], 1 << 16, true).then(() => null, (e: Error) => e.message)).toBe(plain);
    expect(await readBody(file(good), fields, [0, 2], 1 << 16, true)).toHaveLength(2000);
  });
});

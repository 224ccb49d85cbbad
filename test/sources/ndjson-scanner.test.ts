/**
 * read_json's byte-level NDJSON path against DuckDB reading the same files: integers, floats in
 * every JSON form, integers beyond 2^53, strings with escapes, surrogate pairs and multibyte UTF-8,
 * NULLs and missing keys, shuffled keys, blank lines and CRLF. Tiny read chunks put every line,
 * string and multibyte character across chunk boundaries and must change nothing.
 */
import { describe, expect, it } from 'vitest';
import { T, type Field } from '../../src/common/types.js';
import { rng } from '../common/pg-helper.js';
import { canon, ndjsonFixture } from './ndjson-fixture.js';

const fx = ndjsonFixture('quire-ndjson-scan-');
const { file, quireRows, duckRows } = fx;
const readChunked = (f: string, fields: Field[], cols: number[], chunkBytes: number): Promise<unknown[][]> => fx.readBody(f, fields, cols, chunkBytes, true);

const STRINGS = ['plain', '', 'tab\\there', 'quote \\" inside', 'back\\\\slash', 'line\\nbreak', 'caf\\u00e9', 'café', '日本語テキスト', 'emoji 😀 pair', 'escaped pair \\ud83d\\ude00', 'ü'.repeat(7), '\\/slash'];
const FLOATS = ['1.5', '-0.25', '0.7913460577595683', '1e10', '2.5E-3', '-1.7976931348623157e308', '5e-324', '123456.789012345678', '0', '-3', '0.1', '9007199254740993.5'];

function randomFile(seed: number, rows: number): string {
  const r = rng(seed);
  const pick = <X>(xs: readonly X[]): X => xs[Math.floor(r() * xs.length)]!;
  const lines: string[] = [];
  for (let i = 0; i < rows; i++) {
    const parts = [`"id": ${i}`];
    if (r() < 0.85) parts.push(`"i":${r() < 0.1 ? 'null' : String(Math.floor((r() - 0.5) * 2e12))}`);
    if (r() < 0.85) parts.push(`"f" : ${r() < 0.1 ? 'null' : pick(FLOATS)}`);
    if (r() < 0.85) parts.push(`"big":${r() < 0.5 ? '9007199254740993' : String(BigInt(Math.floor(r() * 1e6)) * 100000000000000n + 7n)}`);
    if (r() < 0.85) parts.push(`"s":${r() < 0.1 ? 'null' : `"${pick(STRINGS)}"`}`);
    if (r() < 0.85) parts.push(`"b":${pick(['true', 'false', 'null'])}`);
    // Shuffle the keys after the first.
    for (let k = parts.length - 1; k > 1; k--) {
      const j = 1 + Math.floor(r() * k);
      [parts[k], parts[j]] = [parts[j]!, parts[k]!];
    }
    lines.push(`{${parts.join(r() < 0.2 ? ' , ' : ',')}}`);
    if (r() < 0.05) lines.push('');
    if (r() < 0.05) lines.push('   ');
  }
  return lines.map((l, i) => (i % 3 === 0 ? `${l}\r` : l)).join('\n') + '\n';
}

describe('read_json NDJSON byte path', () => {
  it('agrees with DuckDB on random files', async () => {
    for (const seed of [1, 2, 3]) {
      const f = file(randomFile(seed, 3000));
      const cols = 'id, i, f, big, s, b';
      const q = await quireRows(f, cols);
      expect(q.length).toBe(3000);
      expect(q).toEqual(await duckRows(f, cols));
      // Projection: the skipped columns are checked, not converted, and the read ones are unchanged.
      expect(await quireRows(f, 'id, s')).toEqual(q.map((r) => [r[0], r[4]]));
    }
  });

  it('infers the types it always did', async () => {
    const f = file(randomFile(4, 200));
    const r = await fx.db.query(`select pg_typeof(id)::text, pg_typeof(i)::text, pg_typeof(f)::text, pg_typeof(big)::text, pg_typeof(s)::text, pg_typeof(b)::text from read_json('${f}') limit 1`);
    expect(r.rows[0]).toEqual(['bigint', 'bigint', 'double precision', 'double precision', 'text', 'boolean']);
  });

  it('gives the same rows for any chunk size (lines, strings and UTF-8 sequences split)', async () => {
    const f = file(randomFile(5, 400));
    const fields: Field[] = [
      { name: 'id', type: T.int8 },
      { name: 'i', type: T.int8 },
      { name: 'f', type: T.float8 },
      { name: 'big', type: T.float8 },
      { name: 's', type: T.text },
      { name: 'b', type: T.bool },
    ];
    const all = [0, 1, 2, 3, 4, 5];
    const whole = await readChunked(f, fields, all, 1 << 20);
    expect(whole).toEqual(await duckRows(f, 'id, i, f, big, s, b'));
    for (const size of [1, 3, 7, 64]) expect(await readChunked(f, fields, all, size)).toEqual(whole);
    expect(await readChunked(f, fields, [4, 0], 5)).toEqual(whole.map((r) => [r[4], r[0]]));
  });

  it('converts doubles with 17 significant digits as DuckDB does', async () => {
    const r = rng(17);
    const lines: string[] = [];
    for (let i = 0; i < 20000; i++) lines.push(`{"id": ${i}, "f": ${(r() - 0.5) * 10 ** Math.floor(r() * 6)}, "g": ${-r()}}`);
    lines.push('{"id": 20000, "f": 0.12345678901234567e2, "g": 123456789.12345678901}');
    // 18 … 20 significant digits: through the low 32 bits below 1.8e19, through the text from there.
    for (let i = 0; i < 3000; i++) {
      let d = String(1 + Math.floor(r() * 9));
      for (let j = 1, n = 18 + Math.floor(r() * 3); j < n; j++) d += String(Math.floor(r() * 10));
      const at = 1 + Math.floor(r() * (d.length - 1));
      lines.push(`{"id": ${20001 + i}, "f": ${d.slice(0, at)}.${d.slice(at)}, "g": -0.000${d}}`);
    }
    lines.push('{"id": 23001, "f": 1799999999999999999.9, "g": 18446744073709551617.5}');
    const f = file(lines.join('\n') + '\n');
    expect(await quireRows(f, 'id, f, g')).toEqual(await duckRows(f, 'id, f, g'));
  });

  it('hands the rest of a chunk to the splitter when a line cut by the chunk end is not a record', async () => {
    const text = '{"id": 1, "s": "a"}\n{"id": 2, "s": "bb"}\n{\n  "id": 3,\n  "s": "pretty"\n}\n{"id": 4, "s": "d"}\n{"id": 5, "s": "e"}\n';
    const f = file(text);
    const fields: Field[] = [
      { name: 'id', type: T.int8 },
      { name: 's', type: T.text },
    ];
    const expected = [[1, 'a'], [2, 'bb'], [3, 'pretty'], [4, 'd'], [5, 'e']];
    for (let size = 1; size <= text.length + 1; size++) expect(await readChunked(f, fields, [0, 1], size)).toEqual(expected);
    // CRLF, spaces after a record, blank lines, and no newline after the last record.
    const crlf = '{"id": 1, "s": "a"} \r\n\r\n  \n{"id": 2, "s": "bb"}\t\r\n{"id": 3, "s": "c"}  ';
    const g = file(crlf);
    for (let size = 1; size <= crlf.length + 1; size++) expect(await readChunked(g, fields, [0, 1], size)).toEqual([[1, 'a'], [2, 'bb'], [3, 'c']]);
  });

  it('reads keys that need escaping or are not ASCII, in the sampled order and out of it', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 300; i++) {
      const parts = [`"id": ${i}`, `"na\\"me": "q${i % 5}"`, `"ключ": ${i % 7}`, `"t\\tab": ${i % 2 === 0}`, `"x": "${i}"`];
      if (i % 3 === 1) parts.reverse();
      lines.push(`{${parts.join(', ')}}`);
    }
    const f = file(lines.join('\n'));
    const cols = 'id, "na""me", "ключ", "t\tab", x';
    const q = await quireRows(f, cols);
    expect(q.length).toBe(300);
    expect(q).toEqual(await duckRows(f, cols));
  });

  it('reads records whose keys come in several orders with some left out (no one shape fits), also keys whose hashes collide', async () => {
    // "Aa" and "BB" hash alike (h * 31 + byte), so the by-hash lookup must not take one for the other.
    const lines: string[] = [];
    for (let i = 0; i < 20000; i++) {
      const id = `"id":${i}`;
      const k = `"k":${i % 1000}`;
      const v = i % 7 === 5 ? '' : `"v":${((i * 7919) % 10007) / 10007}`;
      const s = `"s":"cat${i % 17}"`;
      const aa = `"Aa":${i % 3}`;
      const bb = `"BB":"b${i % 5}"`;
      const order = i % 4 === 0 ? [id, k, v, s, aa, bb] : i % 4 === 1 ? [bb, s, v, id, k, aa] : i % 4 === 2 ? [v, aa, id, s] : [s, bb, id];
      lines.push(`{${order.filter((x) => x !== '').join(',')}}`);
    }
    const f = file(lines.join('\n') + '\n');
    const cols = 'id, k, v, s, "Aa", "BB"';
    const q = canon((await fx.db.query(`select ${cols} from read_json('${f}', sample_size => 1000) order by id`)).rows);
    expect(q.length).toBe(20000);
    const d = await fx.duck.runAndReadAll(`select ${cols} from read_json('${f}', format = 'newline_delimited', sample_size = 1000) order by id`);
    expect(q).toEqual(canon(d.getRows() as unknown[][]));
    expect(q[3]).toEqual([3, null, null, 'cat3', null, 'b3']);
    // Past the sample, a key it never saw (DuckDB refuses the record; read_json skips the key).
    const g = file(lines.join('\n') + '\n{"id":20000,"late":1,"s":"cat0","k":1}\n');
    expect(canon((await fx.db.query(`select ${cols} from read_json('${g}', sample_size => 1000) order by id`)).rows)).toEqual([...q, [20000, 1, null, 'cat0', null, null]]);
  });

  it('infers from one JSON.parse of the sample lines only when each line is one object', async () => {
    const typesOf = async (text: string): Promise<string[]> => (await fx.db.query(`select * from read_json('${file(text)}')`)).columns.map((c) => `${c.name}:${c.type.name}`);
    expect(await typesOf('  {"a": 1, "b": "x"}  \r\n\n{"b": null, "c": true}\n{"a": 2.5}')).toEqual(['a:float8', 'b:text', 'c:bool']);
    expect(await typesOf('{"a":1} {"b": 2.5}\n')).toEqual(['a:int8', 'b:float8']);
    // Two values on a line, a character JSON does not count as space, an array, a line ending inside a string.
    await expect(typesOf('{"a":1},{"b":2}\n{"a":3}\n')).rejects.toMatchObject({ code: '22P02', detail: expect.stringContaining('line 1: not a valid JSON value') });
    await expect(typesOf('\u00a0{"a":1}\n')).rejects.toMatchObject({ code: '22P02', detail: expect.stringContaining('line 1') });
    await expect(typesOf('{"a":1}\n[1,2]\n')).rejects.toMatchObject({ code: '22P02', message: 'read_json expects JSON objects' });
    await expect(typesOf('{"a": "x}\n{"b": 1}\n')).rejects.toMatchObject({ code: '22P02' });
  });

  it('keeps many distinct short strings apart (the short-string cache collides)', async () => {
    const N = 20000;
    const f = file(Array.from({ length: N }, (_, i) => `{"id": ${i}, "s": "${(i * 7919) % 6007}x${i % 3}"}`).join('\n'));
    const r = await fx.db.query(`select id, s from read_json('${f}') order by id`);
    expect(r.rows).toEqual(Array.from({ length: N }, (_, i) => [i, `${(i * 7919) % 6007}x${i % 3}`]));
  });

  it('falls back per line for values off the fast path', async () => {
    const f = file('{"a": 1, "t": "x"}\n{"a": 2, "t": "y"}\n{"t": {"n": [1, 2]}, "a": 3, "extra": [1]}\n{"a": 4.0, "t": 5}\n{"a": 12345678901234567, "t": "z"}\n');
    const r = await fx.db.query(`select a, t from read_json('${f}', sample_size => 2)`);
    expect(r.rows).toEqual([
      [1, 'x'],
      [2, 'y'],
      [3, '{"n":[1,2]}'],
      [4, '5'],
      [12345678901234568n, 'z'],
    ]);
  });

  it('reads compact and spaced separators alike, and refuses a missing or doubled one and malformed numbers', async () => {
    const shapes = ['{"id":#,"a":7,"s":"x"}', '{"id" :# , "a":\t7,"s" :"x" }', '{ "id":#,\t"a" : 7 ,"s":"x"\t}', '{"id":#,"a":7,"s":"x"}\t\r', '{"s":"x","a":7,"id":#}'];
    const lines = Array.from({ length: 50 }, (_, i) => shapes[i % shapes.length]!.replace('#', String(i)));
    const f = file(lines.join('\n') + '\n');
    const q = await quireRows(f, 'id, a, s');
    expect(q).toEqual(Array.from({ length: 50 }, (_, i) => [i, 7, 'x']));
    expect(q).toEqual(await duckRows(f, 'id, a, s'));
    for (const broken of ['{"id":3,"a":7.,"s":"x"}', '{"id":3,"a":-,"s":"x"}', '{"id":3,"a":07,"s":"x"}', '{"id":3,"a":.5,"s":"x"}', '{"id":3,"a":1e,"s":"x"}', '{"id":3 "a":7,"s":"x"}', '{"id":3,,"a":7,"s":"x"}', '{"id":3,"a"7,"s":"x"}', '{"id":3,"a":7,"s":"x",}', '{"id":3,"a":7;"s":"x"}']) {
      const g = file(`{"id":1,"a":7,"s":"x"}\n{"id":2,"a":7,"s":"x"}\n${broken}\n`);
      await expect(fx.db.query(`select id, a, s from read_json('${g}')`)).rejects.toMatchObject({ code: '22P02', detail: expect.stringContaining('line 3') });
    }
  });

  it('skips nested objects and arrays it does not read and reads them as JSON text, as the general path does', async () => {
    const r = rng(11);
    const pick = <X>(xs: readonly X[]): X => xs[Math.floor(r() * xs.length)]!;
    const scalars = ['1', '-0.5', '1e3', '0', 'true', 'false', 'null', '"x"', '""', '"caf\\u00e9"', '"日本"', '"q \\" \\\\ \\/"', '"😀"', '123456789012345678901'];
    const nested = (depth: number): string => {
      if (depth > 3 || r() < 0.3) return pick(scalars);
      const n = Math.floor(r() * 4);
      const ws = r() < 0.3 ? ' ' : '';
      if (r() < 0.5) return `[${ws}${Array.from({ length: n }, () => nested(depth + 1)).join(`${ws},${ws}`)}${ws}]`;
      return `{${ws}${Array.from({ length: n }, (_, k) => `"k${k}"${ws}:${ws}${nested(depth + 1)}`).join(`${ws},`)}${ws}}`;
    };
    const N = 3000;
    const raw: string[] = [];
    const lines: string[] = [];
    for (let i = 0; i < N; i++) {
      // Every 500th value nests deeper than the byte path follows (the general path reads it).
      const v = i % 500 === 7 ? '['.repeat(300) + '1' + ']'.repeat(300) : r() < 0.1 ? pick(['{}', '[]', '[ ]', '{ }']) : `{"a":${nested(0)},"b":[${nested(1)}]}`;
      raw.push(v);
      lines.push(`{"id":${i},"n":${v},"x":"v${i % 13}"}`);
    }
    const f = file(lines.join('\n') + '\n');
    const read = await fx.db.query(`select id, n, x from read_json('${f}') order by id`);
    expect(read.rows).toEqual(raw.map((v, i) => [i, JSON.stringify(JSON.parse(v)), `v${i % 13}`]));
    // Not read: only checked, and the other columns agree with DuckDB's reading.
    expect(await quireRows(f, 'id, x')).toEqual(await duckRows(f, 'id, x'));
    // Brackets that do not pair up make the general path read on for the rest of the value, so only
    // the balanced ones are placed on their line.
    const broken = ['{"a":1,}', '[1,]', '{"a" 1}', '[1 2]', '{"a":tru}', '["\\x"]', '[01]', '{1:2}', '{"a":"\\u12G4"}', '[-]', '{"a":[1,2}', '[1]]', '{"a":[}', '['];
    for (const [k, b] of broken.entries()) {
      const g = file(`{"id":1,"n":{"a":[1]},"x":"a"}\n{"id":2,"n":[2],"x":"b"}\n{"id":3,"n":${b},"x":"c"}\n`);
      for (const cols of ['id, n', 'id, x']) {
        await expect(fx.db.query(`select ${cols} from read_json('${g}')`), `${b} (${cols})`).rejects.toMatchObject(k < 10 ? { code: '22P02', detail: expect.stringContaining('line 3') } : { code: '22P02' });
      }
    }
    const badUtf8 = file(Buffer.concat([Buffer.from('{"id":1,"n":{"s":"ok"}}\n{"id":2,"n":["'), Buffer.from([0xc3, 0x28]), Buffer.from('"]}\n')]));
    for (const cols of ['id, n', 'id']) await expect(fx.db.query(`select ${cols} from read_json('${badUtf8}')`)).rejects.toMatchObject({ code: '22021' });
  });

  it('names the file and line of a malformed record and of a value that does not fit', async () => {
    const bad = file('{"a": 1}\n{"a": 2}\n\n{"a": 3,}\n{"a": 4}\n');
    await expect(fx.db.query(`select * from read_json('${bad}')`)).rejects.toMatchObject({ code: '22P02', detail: expect.stringContaining('line 4') });
    const misfit = file('{"a": 1}\r\n{"a": 2}\r\n{"a": "three"}\r\n');
    await expect(fx.db.query(`select * from read_json('${misfit}', sample_size => 2)`)).rejects.toMatchObject({
      code: '22P02',
      message: 'invalid input syntax for type bigint: "three"',
      detail: expect.stringContaining('line 3'),
    });
    const badUtf8 = file(Buffer.concat([Buffer.from('{"s": "ok"}\n{"s": "'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')]));
    await expect(fx.db.query(`select * from read_json('${badUtf8}')`)).rejects.toMatchObject({ code: '22021' });
  });
});

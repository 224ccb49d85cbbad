/**
 * read_json reads newline-delimited files a block of lines at a time and hands anything else (a
 * value spanning lines, two values on a line, empty lines, a top-level array) to its general
 * splitter. Both must give the same rows and the same errors: a file that starts with an empty line
 * goes through the splitter from its first byte, so prefixing one must change nothing but the line
 * numbers in errors.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { rng } from '../common/pg-helper.js';

let db: Database;
let dir: string;
let n = 0;

beforeAll(async () => {
  db = await Database.create();
  dir = mkdtempSync(join(tmpdir(), 'quire-ndjson-'));
});
afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

function file(text: string): string {
  const f = join(dir, `f${n++}.ndjson`);
  writeFileSync(f, text);
  return f;
}

interface Outcome {
  rows?: unknown[][];
  code?: string;
  message?: string;
  detail?: string;
}

async function read(path: string, sql = 'select * from read_json($1)'): Promise<Outcome> {
  try {
    const r = await db.query(sql.replace('$1', `'${path}'`));
    return { rows: r.rows };
  } catch (e) {
    const x = e as { code?: string; message?: string; detail?: string };
    return { code: x.code, message: x.message, detail: x.detail?.replace(path, 'FILE') };
  }
}

/** The outcome with line numbers in an error detail moved by `by`. */
function shiftLines(o: Outcome, by: number): Outcome {
  if (o.detail === undefined) return o;
  return { ...o, detail: o.detail.replace(/line (\d+)/, (_, d: string) => `line ${Number(d) + by}`) };
}

function record(r: () => number, i: number): string {
  const o: Record<string, unknown> = { id: i };
  if (r() < 0.8) o.k = Math.floor(r() * 1000) - 500;
  if (r() < 0.8) o.v = r() < 0.1 ? null : Math.round(r() * 1e6) / 1000;
  if (r() < 0.8) o.s = ['a', 'é😀', 'x,y', 'line\nbreak', '"q"', ''][Math.floor(r() * 6)];
  if (r() < 0.2) o.nested = { a: [1, 2, { b: 'c' }] };
  if (r() < 0.2) o.flag = r() < 0.5;
  return JSON.stringify(o);
}

describe('read_json over newline-delimited blocks', () => {
  it('random files: the block reader and the splitter agree', async () => {
    const r = rng(Number(process.env.NDJSON_SEED ?? 3));
    for (let k = 0; k < 40; k++) {
      const lines: string[] = [];
      // Enough lines to span several read chunks in some files.
      const count = k % 4 === 0 ? 4000 : 1 + Math.floor(r() * 30);
      for (let i = 0; i < count; i++) lines.push(record(r, i));
      // Something the block reader refuses, somewhere in some files.
      const twist = Math.floor(r() * 7);
      const at = Math.floor(r() * lines.length);
      if (twist === 1) lines[at] = JSON.stringify(JSON.parse(lines[at]!), null, 2);
      if (twist === 2) lines[at] = `${lines[at]} ${record(r, -1)}`;
      if (twist === 3) lines.splice(at, 0, '');
      if (twist === 4) lines[at] = '{"id": 1, "k": }';
      if (twist === 5) lines[at] = `${lines[at]},${record(r, -2)}`;
      const eol = k % 3 === 0 ? '\r\n' : '\n';
      const text = lines.join(eol) + (k % 2 === 0 ? eol : '');
      // A small sample leaves the twist to the reader (inference samples through the splitter).
      const sql = k % 2 === 0 ? 'select * from read_json($1, sample_size => 1)' : undefined;
      const fast = await read(file(text), sql);
      const slow = await read(file('\n' + text), sql);
      expect({ k, twist, ...fast }).toEqual({ k, twist, ...shiftLines(slow, -1) });
      if (twist === 0 && fast.rows !== undefined) expect(fast.rows.length).toBe(count);
    }
  });

  it('a bad line deep in a file is reported at its own line', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 20000; i++) lines.push(`{"id": ${i}, "s": "row ${i}"}`);
    lines[15000] = '{"id": 15000, "s": }';
    const o = await read(file(lines.join('\n') + '\n'));
    expect(o.code).toBe('22P02');
    expect(o.detail).toContain('line 15001');
  });

  it('a value of the wrong type is reported at its own line', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 30000; i++) lines.push(`{"id": ${i}}`);
    lines[25000] = '{"id": "x"}';
    const o = await read(file(lines.join('\n') + '\n'), "select * from read_json($1, sample_size => 100)");
    expect(o.code).toBe('22P02');
    expect(o.detail).toContain('line 25001');
  });

  it('pretty-printed records and top-level arrays still read', async () => {
    const recs = [{ a: 1, b: 'x' }, { a: 2, b: null }, { a: 3 }];
    const pretty = await read(file(recs.map((x) => JSON.stringify(x, null, 2)).join('\n')));
    const array = await read(file(JSON.stringify(recs)));
    const lines = await read(file(recs.map((x) => JSON.stringify(x)).join('\n')));
    expect(lines.rows).toEqual([
      [1, 'x'],
      [2, null],
      [3, null],
    ]);
    expect(pretty).toEqual(lines);
    expect(array).toEqual(lines);
  });
});

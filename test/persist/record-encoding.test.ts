/**
 * Log records as the reused record buffer writes them: small commits (one contiguous record, text
 * written value by value) and large ones (column buffers referenced, text encoded joined when it is
 * ASCII, value by value when not), each read back by replay exactly as committed, and a record that
 * outgrows the reused buffer mid-way.
 */
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { ColumnBuilder, getValue, makeColumn, type Batch } from '../../src/common/column.js';
import { T, type Value } from '../../src/common/types.js';
import { decodeBatch, encodeBatch, encodeRows } from '../../src/storage/persist/column-codec.js';
import { RecordBuffer } from '../../src/storage/persist/record-buffer.js';
import { scratchDirs } from './scratch-dirs.js';

const { fresh, crashCopy } = scratchDirs('quire-record-encoding-');

const TEXTS = ['plain', '', 'é', 'naïve café', '日本語', '🙂 smile', "it's", 'x'.repeat(300), 'tab\there'];

describe('log record encoding', () => {
  it('replays small and large commits of ASCII, non-ASCII and NULL text exactly', async () => {
    const dir = fresh();
    const db = await Database.create({ path: dir });
    await db.query('CREATE TABLE t (id int, s text, f float8, b bool)');
    // Large commits: all-ASCII text, then mixed text, each with NULLs.
    await db.query("INSERT INTO t SELECT i, CASE WHEN i % 7 = 0 THEN NULL ELSE 'row-' || i END, i * 0.25, i % 2 = 0 FROM generate_series(1, 5000) i");
    const mixed = TEXTS.map((s, i) => `(${10000 + i}, '${s.replace(/'/g, "''")}', ${i}, true)`);
    await db.query(`INSERT INTO t SELECT g.i + 20000, CASE WHEN g.i % 5 = 0 THEN NULL ELSE v.s END, 1, false FROM generate_series(1, 100) g(i), (VALUES ${TEXTS.map((s) => `('${s.replace(/'/g, "''")}')`).join(', ')}) v(s)`);
    // Small commits, one row each and a few rows each.
    for (const row of mixed) await db.query(`INSERT INTO t VALUES ${row}`);
    await db.query(`INSERT INTO t VALUES ${mixed.join(', ')}`);
    await db.query('INSERT INTO t VALUES (30000, NULL, NULL, NULL)');
    // A record larger than the reused buffer, of rows small enough to be written value by value.
    await db.query(`INSERT INTO t VALUES ${Array.from({ length: 60 }, (_, i) => `(${40000 + i}, '${'ü'.repeat(2000)}${i}', ${i}, false)`).join(', ')}`);
    const q = 'SELECT id, s, f, b FROM t ORDER BY id, s';
    const expected = (await db.query(q)).rows;
    expect(expected.length).toBe(5000 + 900 + 9 + 9 + 1 + 60);
    const replayed = await Database.create({ path: crashCopy(dir), readOnly: true });
    expect((await replayed.query(q)).rows).toEqual(expected);
    await replayed.close();
    await db.close();
    const reopened = await Database.create({ path: dir });
    expect((await reopened.query(q)).rows).toEqual(expected);
    await reopened.close();
  }, 120_000);

  it('encodes few and many typed values and short and long strings as their bytes, and decodes them back', () => {
    const types = [T.int4, T.float8, T.bool, T.text];
    const doubles = [0.5, -0, Number.NaN, Infinity, -Infinity, 5e-324, 1.7976931348623157e308, -2.5];
    // Around the lengths where strings stop being tried byte by byte (64) and with non-ASCII at either end.
    const strings = ['', 'a', 'x'.repeat(63), 'y'.repeat(64), 'z'.repeat(65), `é${'a'.repeat(63)}`, `${'a'.repeat(63)}é`, '日本', '🙂', "it's"];
    // A one-row batch (a one-row commit's) with each string, non-ASCII and long ones included, and NULL:
    // its text is the length (0xFFFFFFFF for NULL) and the UTF-8 bytes, and decodes back.
    for (const s of [...strings, 'é'.repeat(70), null]) {
      const b = new ColumnBuilder(T.text, 1);
      b.push(s);
      const one: Batch = { columns: [b.finish()], length: 1 };
      const out = new RecordBuffer(0);
      encodeBatch(one, [T.text], out);
      const bytes = Buffer.concat(out.finish());
      const utf8 = s === null ? Buffer.alloc(0) : Buffer.from(s, 'utf8');
      // u32 rows, u8 kind, u8 null flag (and the null map when there is one), u32 length, the bytes.
      const head = 4 + 2 + (one.columns[0]!.nulls !== null ? 1 : 0);
      expect(bytes.length, String(s)).toBe(head + 4 + utf8.length);
      expect(bytes.readUInt32LE(head), String(s)).toBe(s === null ? 0xffffffff : utf8.length);
      expect(Buffer.compare(bytes.subarray(head + 4), utf8), String(s)).toBe(0);
      const { batch: back } = decodeBatch(bytes, 0, [T.text]);
      expect(getValue(back.columns[0]!, 0)).toBe(s);
    }
    for (const rows of [1, 2, 7, 31, 32, 33, 63, 64, 65, 257, 300]) {
      const builders = types.map((t) => new ColumnBuilder(t, rows));
      for (let i = 0; i < rows; i++) {
        builders[0]!.push(i % 9 === 4 ? null : (i * 2654435761) | 0);
        builders[1]!.push(i % 11 === 6 ? null : doubles[i % doubles.length]!);
        builders[2]!.push(i % 5 === 3 ? null : i % 2 === 0);
        builders[3]!.push(i % 13 === 12 ? null : strings[i % strings.length]!);
      }
      const batch: Batch = { columns: builders.map((b) => b.finish()), length: rows };
      const out = new RecordBuffer(0);
      encodeBatch(batch, types, out);
      const bytes = Buffer.concat(out.finish());
      expect(bytes.length).toBe(out.bytes);
      // A typed column's data is its array's bytes as the platform stores them (u32 rows, then per
      // column u8 kind, u8 null flag, the null map, the data).
      let pos = 4;
      for (let ci = 0; ci < 3; ci++) {
        const c = batch.columns[ci]!;
        pos += 2;
        if (c.nulls !== null) {
          expect([...bytes.subarray(pos, pos + rows)]).toEqual([...c.nulls.subarray(0, rows)]);
          pos += rows;
        }
        const a = c.data as Int32Array | Float64Array | Uint8Array;
        const raw = new Uint8Array(a.buffer, a.byteOffset, rows * a.BYTES_PER_ELEMENT);
        expect(Buffer.compare(bytes.subarray(pos, pos + raw.length), raw), `rows ${rows} column ${ci}`).toBe(0);
        pos += raw.length;
      }
      // The rows from a position on, written from the columns' arrays, are the bytes of a batch of just those rows.
      const from = Math.floor(rows / 3);
      const cut: Batch = {
        columns: batch.columns.map((c) => {
          const d = c.data;
          return makeColumn(c.type, Array.isArray(d) ? (d as Value[]).slice(from, rows) : (d as Int32Array).subarray(from, rows), c.nulls !== null ? c.nulls.subarray(from, rows) : null);
        }),
        length: rows - from,
      };
      const whole = new RecordBuffer(0);
      encodeBatch(cut, types, whole);
      const cutBytes = Buffer.concat(whole.finish());
      for (const stored of [null, batch.columns.map((c) => c.data)]) {
        const part = new RecordBuffer(0);
        encodeRows(batch.columns, stored, from, rows - from, types, part);
        expect(Buffer.compare(Buffer.concat(part.finish()), cutBytes), `rows ${rows} from ${from}`).toBe(0);
      }
      const { batch: back, end } = decodeBatch(bytes, 0, types);
      expect(end).toBe(bytes.length);
      for (let ci = 0; ci < types.length; ci++) {
        for (let i = 0; i < rows; i++) expect(Object.is(getValue(back.columns[ci]!, i), getValue(batch.columns[ci]!, i)), `rows ${rows} column ${ci} row ${i}`).toBe(true);
      }
    }
  });
});

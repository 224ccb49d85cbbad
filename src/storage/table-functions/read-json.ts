/**
 * read_json(path [, sample_size => 20480]): newline-delimited JSON (any whitespace-separated
 * sequence of objects, so pretty-printed records work too) or one top-level array of objects.
 * `path` may be a glob. Schema: the union of keys in order of first appearance over a sample of the
 * first file; types: bool, int8 (all sampled numbers safe integers), float8 (other numbers), text
 * (strings, mixed kinds, and nested objects/arrays as their JSON text). ISO date strings stay text:
 * telling a date from an identifier that looks like one is guesswork.
 *
 * Inference types values as JSON.parse reads them, so integers beyond 2^53 infer as float8 (the
 * nearest double); lines that repeat one shape are typed by the shape kernel, lines in other key
 * orders by the key kernel, the others parsed.
 * Rows come from ndjson-scanner.ts byte by byte where they fit the schema (see readJsonBody).
 */
import { statSync } from 'node:fs';
import { filesToRead } from '../file-access.js';
import { QuireError } from '../../common/errors.js';
import { T, type DataType, type Field, type Value } from '../../common/types.js';
import { BATCH_SIZE, type Batch } from '../../common/column.js';
import type { ExecContext } from '../../execution/context.js';
import { queryMemory } from '../../execution/memory-pool.js';
import type { EvalContext } from '../../functions/eval-context.js';
import { Utf8Decoder, readFileHead, readFileHeadBytes } from '../csv.js';
import { readFileAhead } from '../read-file-ahead.js';
import { NdjsonColumns, NdjsonSchema, scanRecord } from '../ndjson-scanner.js';
import { NdjsonShape } from '../ndjson-shape.js';
import { SHAPE_KERNEL_BYTES } from '../ndjson-shape-kernel.js';
import type { TableFunction, TableFunctionBinding } from './table-function.js';

const SAMPLE_BYTES = 1 << 20;
/** As read_csv's buffer_size: few enough thread-pool round trips, small enough for progress steps. */
const READ_CHUNK_BYTES = 1 << 18;

/**
 * Streams the top-level JSON values of a document: each element of a top-level array, or each value
 * of a whitespace-separated sequence. Tracks nesting and strings only; JSON.parse validates.
 */
export class JsonValueSplitter {
  private buf = '';
  private pos = 0;
  private scan = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private valueStart = -1;
  /** null until the first significant character decides between array and sequence. */
  private arrayMode: boolean | null = null;
  private arrayClosed = false;
  /** 1-based line of the current position, for error messages. */
  line = 1;
  private lineScan = 0;

  /** Characters held: the value in progress and what follows it. */
  get buffered(): number {
    return this.buf.length - (this.valueStart >= 0 ? Math.min(this.valueStart, this.pos) : this.pos);
  }

  push(chunk: string): void {
    if (this.pos > 0) {
      const cut = this.valueStart >= 0 ? Math.min(this.valueStart, this.pos) : this.pos;
      this.countLines(cut);
      this.buf = this.buf.slice(cut);
      this.scan -= cut;
      this.lineScan -= cut;
      if (this.valueStart >= 0) this.valueStart -= cut;
      this.pos -= cut;
    }
    this.buf += chunk;
  }

  private countLines(to: number): void {
    let i = this.buf.indexOf('\n', this.lineScan);
    while (i !== -1 && i < to) {
      this.line++;
      i = this.buf.indexOf('\n', i + 1);
    }
    this.lineScan = Math.max(this.lineScan, to);
  }

  private syntax(what: string): QuireError {
    this.countLines(this.scan);
    return new QuireError('22P02', `invalid input syntax for type json`, { detail: `${what} at line ${this.line}` });
  }

  /** The next complete value's text, or null when more input is needed / the input is exhausted. */
  next(final: boolean): string | null {
    const buf = this.buf;
    const n = buf.length;
    let i = this.scan;
    while (i < n) {
      const c = buf.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 92) this.escaped = true;
        else if (c === 34) this.inString = false;
        i++;
        continue;
      }
      if (c === 32 || c === 10 || c === 13 || c === 9) {
        // Whitespace ends a top-level scalar (number, literal or string).
        if (this.depth === 0 && this.valueStart >= 0) return this.emit(i, i + 1);
        i++;
        continue;
      }
      if (this.arrayMode === null) {
        this.arrayMode = c === 91; // '['
        if (this.arrayMode) {
          i++;
          continue;
        }
      }
      if (this.arrayClosed) throw this.syntax('unexpected data after the top-level array');
      if (this.depth === 0 && this.valueStart < 0) {
        if (this.arrayMode && c === 44) {
          // ',' between array elements
          i++;
          continue;
        }
        if (this.arrayMode && c === 93) {
          this.arrayClosed = true;
          i++;
          continue;
        }
        this.valueStart = i;
      }
      if (this.depth === 0 && this.valueStart >= 0 && this.valueStart < i && (c === 44 || c === 93)) {
        // End of a scalar element inside the top-level array (the separator is handled next call).
        if (!this.arrayMode) throw this.syntax('unexpected character');
        return this.emit(i, i);
      }
      if (c === 34) this.inString = true;
      else if (c === 123 || c === 91) this.depth++;
      else if (c === 125 || c === 93) {
        this.depth--;
        if (this.depth < 0) throw this.syntax('unbalanced brackets');
      }
      i++;
      if (this.depth === 0 && (c === 125 || c === 93)) {
        // An object or array at top level is complete.
        return this.emit(i, i);
      }
    }
    this.scan = i;
    if (final) {
      if (this.valueStart >= 0 && (this.depth > 0 || this.inString)) throw this.syntax('unexpected end of input');
      if (this.arrayMode === true && !this.arrayClosed && this.valueStart < 0) throw this.syntax('unterminated top-level array');
      if (this.valueStart >= 0) return this.emit(n, n);
    }
    return null;
  }

  private emit(end: number, next: number): string {
    const text = this.buf.slice(this.valueStart, end);
    this.countLines(this.valueStart);
    this.valueStart = -1;
    this.pos = next;
    this.scan = next;
    return text;
  }
}

type Kind = 'null' | 'bool' | 'int8' | 'float8' | 'text';

function kindOf(v: unknown): Kind {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isSafeInteger(v) ? 'int8' : 'float8';
  return 'text';
}

function join(a: Kind, b: Kind): Kind {
  if (a === b || b === 'null') return a;
  if (a === 'null') return b;
  if ((a === 'int8' && b === 'float8') || (a === 'float8' && b === 'int8')) return 'float8';
  return 'text';
}

/** Error details name the file and line but never quote it: the reader may not be allowed to see other lines. */
function parseRecord(text: string, file: string, line: number): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new QuireError('22P02', 'invalid input syntax for type json', { detail: `read_json "${file}", line ${line}: not a valid JSON value` });
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new QuireError('22P02', 'read_json expects JSON objects', { detail: `read_json "${file}", line ${line}: found ${v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`}` });
  }
  return v as Record<string, unknown>;
}

/**
 * The sample's records when it is one object per line: the lines parsed by one JSON.parse as the
 * elements of an array (a tenth of the time of finding each value's end and parsing it alone). Null
 * for anything else (a line that is not `{…}`, a count of values other than one per line), which
 * the splitter then reads with its own results and errors.
 */
const JSON_SPACE_AROUND = /^[ \t\r]+|[ \t\r]+$/g;

function sampleLines(text: string, complete: boolean, sampleSize: number): Record<string, unknown>[] | null {
  const lines = text.split('\n');
  if (!complete) lines.pop();
  const picked: string[] = [];
  for (const raw of lines) {
    if (picked.length >= sampleSize) break;
    // JSON's whitespace only (trim() would also drop characters JSON.parse refuses).
    // Most lines are `{…}` already: the regular expression only for those that are not.
    const l = raw.charCodeAt(0) === 123 && raw.charCodeAt(raw.length - 1) === 125 ? raw : raw.replace(JSON_SPACE_AROUND, '');
    if (l === '') continue;
    if (l.charCodeAt(0) !== 123 || l.charCodeAt(l.length - 1) !== 125) return null;
    picked.push(l);
  }
  let recs: unknown;
  try {
    recs = JSON.parse(`[${picked.join(',')}]`);
  } catch {
    return null;
  }
  if (!Array.isArray(recs) || recs.length !== picked.length) return null;
  for (const r of recs) if (r === null || typeof r !== 'object' || Array.isArray(r)) return null;
  return recs as Record<string, unknown>[];
}

/**
 * The sample read line by line, records that repeat a learnt line's shape through the shape kernel
 * (their kinds from its tags), the others through JSON.parse one line each; JSON.parse of every
 * sampled line was most of what binding read_json cost. Returns the number of records sampled, or
 * -1 when a line is not one JSON object (then the general inference decides, and words any error).
 */
function sampleByShape(head: Buffer, complete: boolean, sampleSize: number, addRecord: (rec: Record<string, unknown>) => void, addKind: (key: string, k: Kind) => void): number {
  let s = head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  const end = complete ? head.length : head.lastIndexOf(10) + 1;
  const decoder = new TextDecoder('utf-8');
  let rows = 0;
  let shape: NdjsonShape | null = null;
  let names: string[] = [];
  let tries = 0;
  // Records in other key orders go through the key kernel, over the names met so far in records
  // parsed here (in their order of first appearance, as addRecord meets them).
  let keyed: NdjsonShape | null = null;
  const known = new Map<string, number>();
  let keyNames: string[] = [];
  let keyTries = 0;
  let keysFirst = false;
  // As in reading: after a line the kernels refuse, the next lines are parsed here, more of them
  // each time (a kernel call copies a window of input, too much to pay for one line of each shape).
  let pause = 0;
  let penalty = 1;
  const take = (by: NdjsonShape, n: number, byNames: string[]): void => {
    const fieldOf = by.fieldOf;
    // Joined per value first (join is order-free), then once into the map.
    for (let v = 0; v < fieldOf.length; v++) {
      let kd = by.sampleKind(head, 0, v);
      for (let row = 1; row < n; row++) kd = join(kd, by.sampleKind(head, row, v));
      addKind(byNames[fieldOf[v]!]!, kd);
    }
  };
  while (s < end && rows < sampleSize) {
    if (pause === 0 && (shape !== null || keyed !== null)) {
      const first: NdjsonShape = keysFirst || shape === null ? keyed! : shape;
      let by = first;
      let n = first.scan(head, s, end, sampleSize - rows);
      if (n === 0) {
        const other: NdjsonShape | null = first === keyed ? shape : keyed;
        if (other !== null) {
          n = other.scan(head, s, end, sampleSize - rows);
          by = other;
          if (n > 0 && other === keyed) keysFirst = true;
        }
      }
      if (n === 0) {
        pause = penalty;
        penalty = Math.min(2 * penalty, 1024);
      } else {
        penalty = 1;
        take(by, n, by === keyed ? keyNames : names);
        rows += n;
        s = by.next;
        continue;
      }
    }
    if (pause > 0) pause--;
    let nl = head.indexOf(10, s);
    if (nl < 0 || nl > end) nl = end;
    const line = decoder.decode(head.subarray(s, nl));
    if (line.replace(JSON_SPACE_AROUND, '') !== '') {
      let rec: unknown;
      try {
        rec = JSON.parse(line);
      } catch {
        return -1;
      }
      if (rec === null || typeof rec !== 'object' || Array.isArray(rec)) return -1;
      addRecord(rec as Record<string, unknown>);
      rows++;
      const recNames = Object.keys(rec);
      let fresh = false;
      for (const k of recNames) {
        if (!known.has(k)) {
          known.set(k, known.size);
          fresh = true;
        }
      }
      if (fresh && keyTries < 8) {
        keyTries++;
        keyNames = [...known.keys()];
        keyed = keyNames.length <= 64 ? NdjsonShape.byKeys(new NdjsonSchema(keyNames.map((name) => ({ name, type: T.text })), keyNames.map((_, i) => i)), false) : null;
      } else if (fresh) keyed = null;
      if (shape === null && tries < 8) {
        tries++;
        // Fields in JSON.parse's key order, as addRecord met them; a shape naming a key twice is
        // not used (JSON.parse keeps the last value only, the kernel sees both).
        names = recNames;
        const schema = new NdjsonSchema(
          names.map((name) => ({ name, type: T.text })),
          names.map((_, i) => i),
        );
        shape = NdjsonShape.learn(head, s, nl, schema);
        if (shape !== null && (shape.fieldOf.length !== names.length || shape.fieldOf.some((f) => f < 0))) shape = null;
      }
    }
    s = nl + 1;
  }
  return rows;
}

function inferSchema(file: string, sampleSize: number): { fields: Field[]; bytesPerRow: number } {
  const kinds = new Map<string, Kind>();
  let rows = 0;
  const addKind = (k: string, kd: Kind): void => {
    const prev = kinds.get(k);
    kinds.set(k, prev === undefined ? kd : join(prev, kd));
  };
  const addRecord = (rec: Record<string, unknown>): void => {
    rows++;
    for (const k of Object.keys(rec)) addKind(k, kindOf(rec[k]));
  };
  const bytes = readFileHeadBytes(file, SAMPLE_BYTES, false);
  const sampled = sampleByShape(bytes.bytes, bytes.complete, sampleSize, addRecord, addKind);
  if (sampled > 0) {
    if (kinds.size === 0) throw new QuireError('22P02', `could not determine the columns of JSON file "${file}": no objects with keys found`);
    const fields: Field[] = [...kinds].map(([name, k]) => ({ name, type: k === 'null' ? T.text : T[k] }));
    return { fields, bytesPerRow: bytes.bytes.length / sampled };
  }
  kinds.clear();
  rows = 0;
  const head = readFileHead(file, SAMPLE_BYTES);
  const text = head.text.charCodeAt(0) === 0xfeff ? head.text.slice(1) : head.text;
  const fast = sampleLines(text, head.complete, sampleSize);
  if (fast !== null) for (const rec of fast) addRecord(rec);
  const sp = new JsonValueSplitter();
  if (fast === null) sp.push(text);
  while (fast === null && rows < sampleSize) {
    let t: string | null;
    try {
      t = sp.next(head.complete);
    } catch (e) {
      if (!head.complete) break;
      throw e;
    }
    if (t === null) break;
    addRecord(parseRecord(t, file, sp.line));
  }
  if (kinds.size === 0) throw new QuireError('22P02', `could not determine the columns of JSON file "${file}": no objects with keys found`);
  const fields: Field[] = [...kinds].map(([name, k]) => ({ name, type: k === 'null' ? T.text : T[k] }));
  return { fields, bytesPerRow: rows > 0 ? Buffer.byteLength(text) / rows : 0 };
}

function toValue(v: unknown, t: DataType, file: string, line: number, col: string): Value {
  if (v === null || v === undefined) return null;
  switch (t.name) {
    case 'bool':
      if (typeof v === 'boolean') return v;
      break;
    case 'int8':
      // + 0: JSON.parse reads -0, which is no integer.
      if (typeof v === 'number' && Number.isSafeInteger(v)) return v + 0;
      if (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) < 2 ** 63) return BigInt(v);
      break;
    case 'float8':
      if (typeof v === 'number') return v;
      break;
    default:
      return typeof v === 'string' ? v : JSON.stringify(v);
  }
  const shown = typeof v === 'string' ? v : JSON.stringify(v);
  throw new QuireError('22P02', `invalid input syntax for type ${t.name === 'int8' ? 'bigint' : t.name === 'float8' ? 'double precision' : 'boolean'}: "${shown}"`, {
    detail: `read_json "${file}", line ${line}, column ${col}`,
  });
}

/**
 * The bytes held while a line or value is incomplete grow with it (one huge document, a very long
 * line): they reserve from the statement's pool, with one output batch and the read buffers, so
 * memory_limit refuses them (53200).
 */
async function* readJsonFiles(
  files: readonly string[],
  fields: readonly Field[],
  cols: readonly number[],
  signal?: AbortSignal,
  exec?: ExecContext,
  chunkBytes?: number,
): AsyncGenerator<Batch> {
  const reservation = exec === undefined ? null : queryMemory(exec).pool.register('read_json', false);
  // One output batch, the chunk being read with the two reads in flight behind it, and the NDJSON kernels' memory.
  const baseBytes = BATCH_SIZE * (cols.length * 24 + 16) + 3 * (chunkBytes ?? READ_CHUNK_BYTES) + SHAPE_KERNEL_BYTES;
  reservation?.grow(baseBytes, 'an output batch and read buffers');
  try {
    yield* readJsonBody(files, fields, cols, signal, chunkBytes, (bytes, file) => {
      if (reservation === null) return;
      const want = baseBytes + bytes;
      if (want > reservation.size) reservation.grow(want - reservation.size, `text of "${file}"`);
      else reservation.shrink(reservation.size - want);
    });
  } finally {
    reservation?.free();
  }
}

/**
 * Rows of newline-delimited JSON. Each line goes through scanRecord (bytes straight into the output
 * columns); a line it declines is parsed whole with JSON.parse; a line that is not one JSON value (a
 * pretty-printed record, a top-level array, two values on a line, a syntax error) hands the rest of
 * the file to the general splitter, which also words the error. Records repeating a learnt line's
 * shape go through the WebAssembly kernel instead (ndjson-shape.ts; `shapes` false: never, for tests).
 * Exported for tests (chunkBytes, shapes).
 */
export async function* readJsonBody(
  files: readonly string[],
  fields: readonly Field[],
  cols: readonly number[],
  signal: AbortSignal | undefined,
  chunkBytes: number | undefined,
  hold: (bytes: number, file: string) => void,
  shapes = true,
): AsyncGenerator<Batch> {
  const types = cols.map((c) => fields[c]!.type);
  const schema = new NdjsonSchema(fields, cols);
  let out = new NdjsonColumns(types, BATCH_SIZE);
  let rows = 0;
  const flush = (): Batch => {
    const b: Batch = { columns: out.finish(rows), length: rows };
    out = new NdjsonColumns(types, BATCH_SIZE);
    rows = 0;
    return b;
  };
  const lineDecoder = new Utf8Decoder(false);
  // Records in any key order, or leaving keys out, go through the key kernel (ndjson-key-kernel.ts).
  const keyed = shapes ? NdjsonShape.byKeys(schema) : null;
  /** The general path for one record: every read column from JSON.parse's object. */
  const putRecord = (rec: Record<string, unknown>, file: string, line: number): void => {
    for (let o = 0; o < cols.length; o++) {
      const f = fields[cols[o]!]!;
      out.set(o, rows, toValue(rec[f.name], f.type, file, line, f.name));
    }
  };
  for (const file of files) {
    let sp: JsonValueSplitter | null = null;
    let dec: Utf8Decoder | null = null;
    let carry: Buffer | null = null;
    let line = 1;
    let first = true;
    let parts: Buffer[] = [];
    let partBytes = 0;
    // Records that repeat a learnt line's shape are read by the WebAssembly kernel (see ndjson-shape.ts).
    let shape: NdjsonShape | null = null;
    // Once a line refuses the learnt shape and the key kernel reads it, the key kernel goes first.
    let keysFirst = false;
    let learnTries = 0;
    let pause = 0;
    let penalty = 1;
    function* drain(splitter: JsonValueSplitter, final: boolean): Generator<Batch> {
      for (;;) {
        const t = splitter.next(final);
        if (t === null) return;
        putRecord(parseRecord(t, file, splitter.line), file, splitter.line);
        rows++;
        if (rows === BATCH_SIZE) yield flush();
      }
    }
    function* toSplitter(rest: Buffer, final: boolean): Generator<Batch> {
      dec = new Utf8Decoder(false);
      sp = new JsonValueSplitter();
      sp.line = line;
      sp.push(dec.decode(rest, final));
      hold(2 * sp.buffered, file);
      yield* drain(sp, final);
    }
    function* lines(data: Buffer, final: boolean): Generator<Batch> {
      let s = 0;
      if (first && data.length >= 3 && data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) s = 3;
      first = false;
      const dv = new DataView(data.buffer, data.byteOffset, data.length);
      for (;;) {
        if (s >= data.length) {
          if (!final) {
            carry = null;
            hold(0, file);
          }
          return;
        }
        // The first lines go the JavaScript way until a shape is learnt from one: where every line
        // has it, a query reading through the shape kernel took a tenth less CPU than through the
        // key kernel (it compares a record's keys in one go instead of looking each one up).
        if (pause === 0 && (shape !== null || (keyed !== null && learnTries >= 8))) {
          const first = keysFirst || shape === null ? keyed! : shape;
          let k = first.read(data, s, data.length, schema, out, rows, BATCH_SIZE - rows);
          let by = first;
          if (k === 0) {
            const other = first === keyed ? shape : keyed;
            if (other !== null) {
              k = other.read(data, s, data.length, schema, out, rows, BATCH_SIZE - rows);
              by = other;
              if (k > 0 && other === keyed) keysFirst = true;
            }
          }
          if (k > 0) {
            rows += k;
            line += k;
            s = by.next;
            penalty = 1;
            if (rows === BATCH_SIZE) yield flush();
            continue;
          }
          // A line of another shape: the next lines are read here, more of them each time the
          // kernel is refused, so a file whose lines differ does not pay for it on every line.
          pause = penalty;
          penalty = Math.min(2 * penalty, 1024);
        }
        const got = scanRecord(data, dv, s, data.length, final, schema, out, rows);
        let nl = schema.lineEnd;
        if (got > 0 && shape === null && shapes && learnTries < 8) {
          learnTries++;
          shape = NdjsonShape.learn(data, s, nl, schema);
        }
        if (pause > 0) pause--;
        if (got < 0) {
          nl = data.indexOf(10, s);
          if (nl < 0) {
            if (!final) {
              carry = data.subarray(s);
              hold(carry.length, file);
              return;
            }
            nl = data.length;
          }
          let rec: unknown;
          try {
            rec = JSON.parse(lineDecoder.decode(data.subarray(s, nl), true));
          } catch {
            rec = undefined;
          }
          if (rec === null || typeof rec !== 'object' || Array.isArray(rec)) {
            yield* toSplitter(data.subarray(s), final);
            return;
          }
          putRecord(rec as Record<string, unknown>, file, line);
        }
        if (got !== 0) {
          rows++;
          if (rows === BATCH_SIZE) yield flush();
        }
        line++;
        s = nl + 1;
      }
    }
    for await (const chunk of readFileAhead(file, chunkBytes ?? READ_CHUNK_BYTES, signal, 'read_json')) {
      if (sp !== null) {
        const splitter: JsonValueSplitter = sp;
        splitter.push(dec!.decode(chunk));
        hold(2 * splitter.buffered, file);
        yield* drain(splitter, false);
        continue;
      }
      const held = carry as Buffer | null;
      if (held === null) {
        yield* lines(chunk, false);
        continue;
      }
      // A line longer than a chunk gathers its pieces and joins them once, not once per chunk.
      const nl = chunk.indexOf(10);
      if (nl < 0) {
        // Copied: the reader reuses a chunk's buffer two chunks on.
        if (parts.length === 0) carry = Buffer.from(held);
        parts.push(Buffer.from(chunk));
        partBytes += chunk.length;
        hold(held.length + partBytes, file);
        continue;
      }
      // Only the cut line is joined; the rest of the chunk is read where it lies.
      const joined = Buffer.concat([held, ...parts, chunk.subarray(0, nl + 1)]);
      parts = [];
      partBytes = 0;
      yield* lines(joined, false);
      if (sp !== null) {
        // The cut line handed the file to the splitter, which took only that line: give it the rest.
        const splitter: JsonValueSplitter = sp;
        splitter.push(dec!.decode(chunk.subarray(nl + 1)));
        hold(2 * splitter.buffered, file);
        yield* drain(splitter, false);
        continue;
      }
      yield* lines(chunk.subarray(nl + 1), false);
    }
    if (parts.length > 0) carry = Buffer.concat([carry as Buffer | null ?? Buffer.alloc(0), ...parts]);
    if (sp !== null) {
      const splitter: JsonValueSplitter = sp;
      splitter.push(dec!.decode(new Uint8Array(0), true));
      yield* drain(splitter, true);
    } else {
      const held = carry as Buffer | null;
      if (held !== null) yield* lines(held, true);
      else if (first) yield* lines(Buffer.alloc(0), true);
    }
  }
  if (rows > 0) yield flush();
}

interface JsonSpec {
  files: readonly string[];
  fields: readonly Field[];
  cols: readonly number[];
  estimatedRows?: number;
}

function makeBinding(spec: JsonSpec): TableFunctionBinding {
  const { files, fields, cols } = spec;
  const binding: TableFunctionBinding = {
    schema: cols.map((c) => fields[c]!),
    argTypes: [T.text],
    execute: (_args, _ctx, signal, exec) => readJsonFiles(files, fields, cols, signal, exec),
    withProjection: (keep) => makeBinding({ ...spec, cols: keep.map((c) => cols[c]!) }),
    describe: () => (cols.length < fields.length ? `columns: [${cols.map((c) => fields[c]!.name).join(', ')}]` : ''),
  };
  if (spec.estimatedRows !== undefined) binding.estimatedRows = spec.estimatedRows;
  return binding;
}

export const readJson: TableFunction = {
  name: 'read_json',
  bind(argTypes: readonly DataType[], constArgs: readonly (Value | undefined)[], ctx: EvalContext, namedArgs: ReadonlyMap<string, Value>): TableFunctionBinding {
    if (argTypes.length !== 1) {
      throw new QuireError('42883', `function read_json(${argTypes.map((t) => t.name).join(', ')}) does not exist`, {
        hint: 'read_json takes one positional argument (the file path or glob) and named options.',
      });
    }
    const p = constArgs[0];
    if (typeof p !== 'string') throw new QuireError('22023', 'read_json path must be a constant string');
    let sampleSize = 20480;
    for (const [k, v] of namedArgs) {
      if (k.toLowerCase() === 'sample_size' && (typeof v === 'number' || typeof v === 'bigint') && Number(v) > 0) sampleSize = Number(v);
      else throw new QuireError('22023', `unrecognized read_json option "${k}"`);
    }
    const files = filesToRead(p, ctx.files);
    const { fields, bytesPerRow } = inferSchema(files[0]!, sampleSize);
    const spec: JsonSpec = { files, fields, cols: fields.map((_, i) => i) };
    if (bytesPerRow > 0) {
      let total = 0;
      for (const f of files) {
        try {
          total += statSync(f).size;
        } catch {
          // A file that vanished since globbing fails when read; the estimate just ignores it.
        }
      }
      spec.estimatedRows = Math.ceil(total / bytesPerRow);
    }
    const binding = makeBinding(spec);
    return binding;
  },
};

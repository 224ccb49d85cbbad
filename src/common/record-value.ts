/**
 * Record values (anonymous rows: ROW(a, b), a whole-row reference to a FROM item). A record carries its
 * fields' types, as PostgreSQL's record datums carry their row type, so that output, ordering and
 * hashing can use each field's own rules. The field rules are passed in, keeping this file below the
 * value modules.
 */
import { QuireError } from './errors.js';
import { typeDisplayName, type DataType, type Value } from './types.js';

export class RecordValue {
  constructor(
    readonly fields: readonly Value[],
    readonly types: readonly DataType[],
  ) {}
}

/**
 * record_out: `(f1,f2)`, a NULL field as nothing; a field that is empty or contains a quote, backslash,
 * parenthesis, comma or whitespace is double-quoted with quotes and backslashes doubled.
 */
export function formatRecord(r: RecordValue, formatField: (v: Value, t: DataType) => string): string {
  const parts = r.fields.map((v, i) => {
    if (v === null) return '';
    const s = formatField(v, r.types[i]!);
    if (s === '' || /["\\(),\s]/.test(s)) return `"${s.replace(/["\\]/g, '$&$&')}"`;
    return s;
  });
  return `(${parts.join(',')})`;
}

/**
 * record_cmp: field by field, a NULL field after every value (two NULL fields equal); records of
 * different shapes are an error, as in PostgreSQL.
 */
export function compareRecords(a: RecordValue, b: RecordValue, compareField: (x: Value, y: Value, t: DataType) => number): number {
  if (a.fields.length !== b.fields.length) throw new QuireError('42804', 'cannot compare record types with different numbers of columns');
  const n = a.fields.length;
  for (let i = 0; i < n; i++) {
    const ta = a.types[i]!;
    const tb = b.types[i]!;
    if (ta.name !== tb.name) {
      throw new QuireError('42804', `cannot compare dissimilar column types ${typeDisplayName(ta)} and ${typeDisplayName(tb)} at record column ${i + 1}`);
    }
    const x = a.fields[i]!;
    const y = b.fields[i]!;
    if (x === null || y === null) {
      if (x === null && y === null) continue;
      return x === null ? 1 : -1;
    }
    const c = compareField(x, y, a.types[i]!);
    if (c !== 0) return c;
  }
  return 0;
}

/** A Map key equal for records equal under record_eq (fields keyed by their own hash keys). */
export function recordHashKey(r: RecordValue, keyOf: (v: Value, t: DataType) => unknown): string {
  return JSON.stringify(
    r.fields.map((v, i) => {
      if (v === null) return null;
      const k = keyOf(v, r.types[i]!);
      return `${typeof k}:${String(k)}`;
    }),
  );
}

/**
 * record_in's reading of `(f1,f2,…)`: a field with nothing between the delimiters is NULL, `""` is the
 * empty string; inside double quotes `""` is one quote; a backslash takes the next character literally.
 * Whitespace is part of a field, as in PostgreSQL. `fieldCount` is the composite type's.
 */
export function parseRecordText(s: string, fieldCount: number): (string | null)[] {
  const bad = (detail: string): QuireError => new QuireError('22P02', `malformed record literal: "${s}"`, { detail });
  let i = 0;
  while (i < s.length && /\s/.test(s[i]!)) i++;
  if (s[i] !== '(') throw bad('Missing left parenthesis.');
  i++;
  const out: (string | null)[] = [];
  for (;;) {
    if (out.length >= fieldCount) throw bad('Too many columns.');
    let text = '';
    let quoted = false;
    while (i < s.length && s[i] !== ',' && s[i] !== ')') {
      const c = s[i]!;
      if (c === '\\') {
        if (i + 1 >= s.length) throw bad('Unexpected end of input.');
        text += s[i + 1];
        i += 2;
      } else if (c === '"') {
        quoted = true;
        i++;
        for (;;) {
          if (i >= s.length) throw bad('Unexpected end of input.');
          const q = s[i]!;
          if (q === '\\' && i + 1 < s.length) {
            text += s[i + 1];
            i += 2;
          } else if (q === '"' && s[i + 1] === '"') {
            text += '"';
            i += 2;
          } else if (q === '"') {
            i++;
            break;
          } else {
            text += q;
            i++;
          }
        }
      } else {
        text += c;
        i++;
      }
    }
    if (i >= s.length) throw bad('Unexpected end of input.');
    out.push(text === '' && !quoted ? null : text);
    if (s[i] === ')') break;
    i++;
  }
  i++;
  if (out.length < fieldCount) throw bad('Too few columns.');
  while (i < s.length && /\s/.test(s[i]!)) i++;
  if (i < s.length) throw bad('Junk after right parenthesis.');
  return out;
}

/**
 * Array values: PostgreSQL's array text format (array_out / array_in) for one-dimensional arrays, and
 * their ordering (btarraycmp: element by element, nulls after every value, then length). The element
 * type's own output, input and comparison are passed in, so this file stays below the value modules.
 */
import { QuireError } from './errors.js';
import type { ArrayValue, Value } from './types.js';

/** array_out: elements that are empty, spell NULL, or contain a delimiter, brace, quote, backslash or space are quoted. */
export function formatArray(a: ArrayValue, formatElement: (v: Value) => string): string {
  const parts = a.map((v) => {
    if (v === null) return 'NULL';
    const e = formatElement(v);
    if (e === '' || /^null$/i.test(e) || /[{},"\\\s]/.test(e)) return `"${e.replace(/["\\]/g, '\\$&')}"`;
    return e;
  });
  return `{${parts.join(',')}}`;
}

function malformed(s: string, detail: string): QuireError {
  return new QuireError('22P02', `malformed array literal: "${s}"`, { detail });
}

/**
 * array_in's lexing: `{a,"b c",NULL}` to element texts (null for an unquoted NULL), which the caller
 * parses with the element type's input; dimension decorations and nested arrays are refused.
 */
export function parseArrayText(s: string): (string | null)[] {
  let i = 0;
  const n = s.length;
  const ws = (): void => {
    while (i < n && /\s/.test(s[i]!)) i++;
  };
  ws();
  if (s[i] === '[') throw new QuireError('0A000', `array dimension decorations are not supported: "${s}"`);
  if (s[i] !== '{') throw malformed(s, 'Array value must start with "{" or dimension information.');
  i++;
  const out: (string | null)[] = [];
  ws();
  if (s[i] === '}') {
    i++;
  } else {
    for (;;) {
      ws();
      if (s[i] === '{') throw new QuireError('0A000', `multidimensional arrays are not supported: "${s}"`);
      let v = '';
      let quoted = false;
      let any = false;
      // An element is a run of quoted and unquoted pieces; unquoted whitespace at its ends is dropped.
      let trailingWs = 0;
      while (i < n && s[i] !== ',' && s[i] !== '}') {
        const c = s[i]!;
        if (c === '"') {
          quoted = true;
          i++;
          while (i < n && s[i] !== '"') {
            if (s[i] === '\\') i++;
            if (i >= n) break;
            v += s[i++];
          }
          if (i >= n) throw malformed(s, 'Unexpected end of input.');
          i++;
          trailingWs = 0;
        } else if (c === '\\') {
          i++;
          if (i >= n) throw malformed(s, 'Unexpected end of input.');
          v += s[i++];
          trailingWs = 0;
        } else if (c === '{') {
          throw malformed(s, 'Unexpected "{" character.');
        } else {
          if (/\s/.test(c)) trailingWs++;
          else trailingWs = 0;
          v += c;
          i++;
        }
        any = true;
      }
      if (i >= n) throw malformed(s, 'Unexpected end of input.');
      if (trailingWs > 0) v = v.slice(0, v.length - trailingWs);
      if (!any) throw malformed(s, `Unexpected "${s[i]}" character.`);
      out.push(!quoted && /^null$/i.test(v) ? null : v);
      if (s[i] === '}') {
        i++;
        break;
      }
      i++;
    }
  }
  ws();
  if (i < n) throw malformed(s, 'Junk after closing right brace.');
  return out;
}

/** btarraycmp: the first differing element decides (a null element sorts after every value), then length. */
export function compareArrays(a: ArrayValue, b: ArrayValue, compareElements: (x: Value, y: Value) => number): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === null || y === null) {
      if (x === y) continue;
      return x === null ? 1 : -1;
    }
    const c = compareElements(x, y);
    if (c !== 0) return c;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/**
 * A hash key equal for arrays that compare equal: the elements' own hash keys (1.0 and 1.00 are one
 * numeric), each length-prefixed so that no element's text can imitate a boundary.
 */
export function arrayHashKey(a: ArrayValue, elementKey: (v: Value) => number | bigint | string | boolean): string {
  let out = `${a.length}[`;
  for (const v of a) {
    if (v === null) {
      out += 'N';
      continue;
    }
    const k = elementKey(v);
    const s = typeof k === 'string' ? `s${k.length}:${k}` : typeof k === 'bigint' ? `b${k}` : typeof k === 'boolean' ? (k ? 't' : 'f') : `n${k}`;
    out += s + ';';
  }
  return out;
}

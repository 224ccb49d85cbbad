/**
 * PostgreSQL (ARE) regular expressions on JavaScript's engine: the common subset is translated
 * (POSIX bracket classes, \m \M \y \Y \A \Z, embedded options, '***=' literals, ']' first in a
 * bracket) and compiled with the 'u' flag so '.' and classes work on characters, not UTF-16 units.
 * PostgreSQL's default is not newline-sensitive: '.' matches a newline and ^ $ anchor the whole string.
 */
import { err, SQLSTATE } from '../../../common/errors.js';

const CLASSES: Record<string, string> = {
  alpha: '\\p{L}',
  digit: '0-9',
  alnum: '\\p{L}\\p{Nd}',
  upper: '\\p{Lu}',
  lower: '\\p{Ll}',
  space: '\\s',
  blank: ' \\t',
  punct: '!-\\/:-@\\[-`{-~',
  xdigit: '0-9A-Fa-f',
  word: '\\p{L}\\p{Nd}_',
  cntrl: '\\x00-\\x1f\\x7f',
  print: '\\x20-\\x7e\\u00a0-\\u{10ffff}',
  graph: '\\x21-\\x7e\\u00a1-\\u{10ffff}',
};

const SYNTAX = new Set(['^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/']);
const WORD = '[\\p{L}\\p{Nd}_]';

function invalid(msg: string): never {
  throw err(SQLSTATE.invalidRegularExpression, `invalid regular expression: ${msg}`);
}

function escapeLiteral(s: string): string {
  let out = '';
  for (const c of s) out += SYNTAX.has(c) ? '\\' + c : c === '-' ? '\\-' : c;
  return out;
}

/** Options that change how the pattern is read (from flags or a leading "(?flags)"). */
interface Options {
  icase: boolean;
  newline: boolean;
  expanded: boolean;
  literal: boolean;
}

function applyFlag(o: Options, f: string, where: 'call' | 'embedded'): void {
  switch (f) {
    case 'i':
      o.icase = true;
      break;
    case 'c':
      o.icase = false;
      break;
    case 'n':
    case 'm':
      o.newline = true;
      break;
    case 's':
      o.newline = false;
      break;
    case 'x':
      o.expanded = true;
      break;
    case 't':
      o.expanded = false;
      break;
    case 'q':
      if (where === 'call') {
        o.literal = true;
        break;
      }
      invalid('invalid embedded option');
      break;
    case 'b':
    case 'e':
    case 'p':
    case 'w':
      // Valid in PostgreSQL (BRE/ERE syntax, partial newline sensitivity) but not translated.
      throw err(SQLSTATE.featureNotSupported, `regular expression option "${f}" is not supported yet`);
    default:
      if (where === 'call') throw err(SQLSTATE.invalidParameterValue, `invalid regular expression option: "${f}"`);
      invalid('invalid embedded option');
  }
}

function translateBody(src: string, o: Options): string {
  let out = '';
  let i = 0;
  let depth = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i]!;
    if (o.expanded && /\s/.test(c)) {
      i++;
      continue;
    }
    if (o.expanded && c === '#') {
      while (i < n && src[i] !== '\n') i++;
      continue;
    }
    if (c === '\\') {
      if (i + 1 >= n) invalid('invalid escape \\ sequence');
      const e = src[i + 1]!;
      i += 2;
      switch (e) {
        case 'm':
          out += `(?<!${WORD})(?=${WORD})`;
          break;
        case 'M':
          out += `(?<=${WORD})(?!${WORD})`;
          break;
        case 'y':
          out += `(?:(?<!${WORD})(?=${WORD})|(?<=${WORD})(?!${WORD}))`;
          break;
        case 'Y':
          out += `(?:(?<=${WORD})(?=${WORD})|(?<!${WORD})(?!${WORD}))`;
          break;
        case 'A':
          out += '(?<![\\s\\S])';
          break;
        case 'Z':
          out += '(?![\\s\\S])';
          break;
        case 'd':
        case 'D':
        case 's':
        case 'S':
        case 'n':
        case 't':
        case 'r':
        case 'f':
        case 'v':
          out += '\\' + e;
          break;
        case 'w':
          out += WORD;
          break;
        case 'W':
          out += '[^\\p{L}\\p{Nd}_]';
          break;
        case 'x':
        case 'u':
        case 'U': {
          const len = e === 'x' ? 0 : e === 'u' ? 4 : 8;
          const m = (len === 0 ? /^[0-9a-fA-F]+/ : new RegExp(`^[0-9a-fA-F]{${len}}`)).exec(src.slice(i));
          if (!m) invalid('invalid escape \\ sequence');
          i += m[0].length;
          out += `\\u{${m[0]}}`;
          break;
        }
        default:
          if (/[1-9]/.test(e)) {
            out += '\\' + e;
          } else if (/[0-9A-Za-z]/.test(e)) {
            invalid('invalid escape \\ sequence');
          } else {
            out += escapeLiteral(e);
          }
      }
      continue;
    }
    if (c === '[') {
      const r = translateBracket(src, i);
      out += r.out;
      i = r.end;
      continue;
    }
    if (c === '(') depth++;
    if (c === ')') {
      if (depth === 0) invalid('parentheses () not balanced');
      depth--;
    }
    if (c === ']' || c === '}') {
      out += '\\' + c;
      i++;
      continue;
    }
    if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(src.slice(i));
      if (!m) invalid('invalid repetition count(s)');
      if (m[3] !== undefined && m[3] !== '' && Number(m[3]) < Number(m[1])) invalid('invalid repetition count(s)');
      out += m[0];
      i += m[0].length;
      continue;
    }
    if (c === '.' && o.newline) {
      out += '[^\\n]';
      i++;
      continue;
    }
    out += c;
    i++;
  }
  if (depth !== 0) invalid('parentheses () not balanced');
  return out;
}

function translateBracket(src: string, start: number): { out: string; end: number } {
  let i = start + 1;
  let out = '[';
  if (src[i] === '^') {
    out += '^';
    i++;
  }
  // A ']' right after '[' or '[^' is a literal member in POSIX brackets.
  if (src[i] === ']') {
    out += '\\]';
    i++;
  }
  while (i < src.length) {
    const c = src[i]!;
    if (c === ']') return { out: out + ']', end: i + 1 };
    if (c === '[' && src[i + 1] === ':') {
      const close = src.indexOf(':]', i + 2);
      if (close < 0) invalid('brackets [] not balanced');
      const name = src.slice(i + 2, close);
      const cls = CLASSES[name];
      if (cls === undefined) invalid('invalid character class');
      out += cls;
      i = close + 2;
      continue;
    }
    if (c === '[' && (src[i + 1] === '.' || src[i + 1] === '=')) {
      const end = src.indexOf(src[i + 1] + ']', i + 2);
      if (end < 0) invalid('brackets [] not balanced');
      out += escapeLiteral(src.slice(i + 2, end));
      i = end + 2;
      continue;
    }
    if (c === '\\' && i + 1 < src.length) {
      const e = src[i + 1]!;
      out += /[dswDSWntrfv]/.test(e) ? (e === 'w' ? '\\p{L}\\p{Nd}_' : '\\' + e) : escapeLiteral(e);
      i += 2;
      continue;
    }
    out += c === '[' || c === '/' ? '\\' + c : c;
    i++;
  }
  return invalid('brackets [] not balanced');
}

const cache = new Map<string, RegExp>();
const CACHE_LIMIT = 256;

/** Compile a PostgreSQL pattern; flags are PostgreSQL's ('i', 'n', 'x', 'q', …), 'g' handled by callers. */
export function compileRegex(pattern: string, flags = '', global = false): RegExp {
  const key = `${flags}\u0000${global ? 'g' : ''}\u0000${pattern}`;
  const hit = cache.get(key);
  if (hit !== undefined) {
    hit.lastIndex = 0;
    return hit;
  }
  const o: Options = { icase: false, newline: false, expanded: false, literal: false };
  for (const f of flags) if (f !== 'g') applyFlag(o, f, 'call');
  let body = pattern;
  if (body.startsWith('***=')) {
    o.literal = true;
    body = body.slice(4);
  } else if (body.startsWith('***:')) {
    body = body.slice(4);
  }
  if (!o.literal) {
    const m = /^\(\?([a-z]*)\)/.exec(body);
    if (m) {
      for (const f of m[1]!) applyFlag(o, f, 'embedded');
      body = body.slice(m[0].length);
    }
  }
  const src = o.literal ? escapeLiteral(body) : translateBody(body, o);
  const jsFlags = 'u' + (o.icase ? 'i' : '') + (o.newline ? 'm' : 's') + (global ? 'g' : '');
  let re: RegExp;
  try {
    re = new RegExp(src, jsFlags);
  } catch (e) {
    invalid((e as Error).message.replace(/^Invalid regular expression: /, ''));
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, re);
  return re;
}

/** regexp_replace's replacement string: \1 … \9 groups, \& the whole match, \\ a backslash. */
export function expandReplacement(repl: string, m: RegExpExecArray): string {
  if (!repl.includes('\\')) return repl;
  let out = '';
  for (let i = 0; i < repl.length; i++) {
    const c = repl[i]!;
    if (c === '\\' && i + 1 < repl.length) {
      const e = repl[i + 1]!;
      if (e >= '1' && e <= '9') {
        out += m[Number(e)] ?? '';
        i++;
        continue;
      }
      if (e === '&') {
        out += m[0];
        i++;
        continue;
      }
      if (e === '\\') {
        out += '\\';
        i++;
        continue;
      }
    }
    out += c;
  }
  return out;
}

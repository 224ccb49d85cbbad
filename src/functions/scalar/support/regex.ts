/**
 * PostgreSQL (ARE) regular expressions: the common subset is translated (POSIX bracket classes,
 * \m \M \y \Y \A \Z, embedded options, '***=' literals, ']' first in a bracket) and run by RE2
 * (re2js), whose matching time is linear in the input, so no pattern can stall the server.
 * Patterns RE2 cannot express (back references, the word-edge escapes, which need lookaround) run on
 * JavaScript's backtracking engine in a worker under a time bound (regex-sandbox.ts).
 * PostgreSQL's default is not newline-sensitive: '.' matches a newline and ^ $ anchor the whole string.
 */
import type { RE2JS } from 're2js';
import { err, SQLSTATE } from '../../../common/errors.js';
import { lazyModule } from '../../../common/lazy-module.js';
import { sandboxedRegex } from './regex-sandbox.js';

/** RE2 is loaded by the first regular expression compiled: most processes never compile one. */
const re2 = lazyModule<typeof import('re2js')>('re2js');

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

/** JavaScript's \s with the 'u' flag, spelled for RE2 (whose \s is ASCII only). */
const SPACE_RE2 = '\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}';

/** Which engine a translation is for; RE2 cannot do lookaround or back references. */
type Target = 'js' | 're2';

/** Thrown by a translation for RE2 when the pattern needs the backtracking engine. */
class NeedsBacktracking extends Error {}

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

function translateBody(src: string, o: Options, target: Target): string {
  const re2 = target === 're2';
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
        case 'M':
        case 'y':
        case 'Y':
          if (re2) throw new NeedsBacktracking();
          break;
        case 'A':
        case 'Z':
          if (re2) {
            out += e === 'A' ? '\\A' : '\\z';
            continue;
          }
          break;
      }
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
        case 's':
        case 'S':
          if (re2) {
            out += e === 's' ? `[${SPACE_RE2}]` : `[^${SPACE_RE2}]`;
            break;
          }
          out += '\\' + e;
          break;
        case 'd':
        case 'D':
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
          out += re2 ? `\\x{${m[0]}}` : `\\u{${m[0]}}`;
          break;
        }
        default:
          if (/[1-9]/.test(e)) {
            if (re2) throw new NeedsBacktracking();
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
      const r = translateBracket(src, i, target);
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

function translateBracket(src: string, start: number, target: Target): { out: string; end: number } {
  const re2 = target === 're2';
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
      out += re2 ? (name === 'space' ? SPACE_RE2 : cls.replace(/\\u\{/g, '\\x{').replace(/\\u([0-9a-f]{4})/g, '\\x{$1}')) : cls;
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
      if (re2 && (e === 's' || e === 'S' || e === 'W' || e === 'D')) {
        // RE2 takes no negated or Unicode-space class escapes inside brackets the way JavaScript does.
        if (e !== 's') throw new NeedsBacktracking();
        out += SPACE_RE2;
      } else out += /[dswDSWntrfv]/.test(e) ? (e === 'w' ? '\\p{L}\\p{Nd}_' : '\\' + e) : escapeLiteral(e);
      i += 2;
      continue;
    }
    out += c === '[' || c === '/' ? '\\' + c : c;
    i++;
  }
  return invalid('brackets [] not balanced');
}

/**
 * A compiled pattern with the part of RegExp's interface the functions use: exec() from lastIndex
 * when global (advancing it; resetting it to 0 after the last match), test(), and the match as a
 * RegExpExecArray (groups that did not participate are undefined, indexes in UTF-16 units).
 */
export interface PgRegex {
  lastIndex: number;
  readonly global: boolean;
  exec(s: string): RegExpExecArray | null;
  test(s: string): boolean;
}

class Re2Regex implements PgRegex {
  lastIndex = 0;
  constructor(
    private readonly re: RE2JS,
    readonly global: boolean,
  ) {}

  exec(s: string): RegExpExecArray | null {
    const from = this.global ? this.lastIndex : 0;
    if (from > s.length) {
      this.lastIndex = 0;
      return null;
    }
    const m = this.re.matcher(s);
    if (!m.find(from)) {
      if (this.global) this.lastIndex = 0;
      return null;
    }
    const n = m.groupCount();
    const arr: (string | undefined)[] = [];
    for (let g = 0; g <= n; g++) {
      const v = m.group(g);
      arr.push(v === null ? undefined : v);
    }
    const r = arr as unknown as RegExpExecArray;
    r.index = m.start(0);
    r.input = s;
    if (this.global) this.lastIndex = m.end(0);
    return r;
  }

  test(s: string): boolean {
    if (this.global) return this.exec(s) !== null;
    return this.re.test(s);
  }
}

/** RE2 flags for PostgreSQL's options (translateBody already spelled '.' for newline sensitivity). */
function re2Flags(o: Options): number {
  const { RE2JS } = re2();
  return (o.icase ? RE2JS.CASE_INSENSITIVE : 0) | (o.newline ? RE2JS.MULTILINE : RE2JS.DOTALL);
}

const cache = new Map<string, PgRegex>();
const CACHE_LIMIT = 256;

/** Compile a PostgreSQL pattern; flags are PostgreSQL's ('i', 'n', 'x', 'q', …), 'g' handled by callers. */
export function compileRegex(pattern: string, flags = '', global = false): PgRegex {
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
  // The JavaScript translation validates the pattern (and gives PostgreSQL-like messages) either way.
  const src = o.literal ? escapeLiteral(body) : translateBody(body, o, 'js');
  const jsFlags = 'u' + (o.icase ? 'i' : '') + (o.newline ? 'm' : 's') + (global ? 'g' : '');
  try {
    new RegExp(src, jsFlags);
  } catch (e) {
    invalid((e as Error).message.replace(/^Invalid regular expression: /, ''));
  }
  let re: PgRegex | null = null;
  try {
    const re2src = o.literal ? src : translateBody(body, o, 're2');
    re = new Re2Regex(re2().RE2JS.compile(re2src, re2Flags(o)), global);
  } catch (e) {
    // Lookaround, back references, large repeat counts: valid, but not RE2's.
    if (!(e instanceof NeedsBacktracking) && !(e instanceof Error && e.name === 'RE2JSSyntaxException')) throw e;
  }
  re ??= sandboxedRegex(src, jsFlags);
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

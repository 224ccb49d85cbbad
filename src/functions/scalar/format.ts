/** format(formatstr, variadic "any"): the %s, %I, %L and %% specifiers with positions, '-' and widths. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { DataType, Value } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { err, SQLSTATE } from '../../common/errors.js';
import { guessTextOf, textOfArgs, type TextOf, type TypedScalarOverload } from './support/any-text.js';
import { quoteIdent, quoteLiteral } from './support/quote.js';
import { charLength } from './support/text.js';

const bad = (msg: string, hint?: string): never => {
  throw err(SQLSTATE.invalidParameterValue, msg, undefined, hint === undefined ? {} : { hint });
};

function formatWith(textAt: (i: number) => TextOf) {
  return (ctx: EvalContext, fmt: Value, ...args: Value[]): string | null => {
    if (fmt === null) return null;
    const f = fmt as string;
    let out = '';
    let next = 0;
    let i = 0;
    const readNum = (): number | null => {
      const m = /^\d+/.exec(f.slice(i));
      if (!m) return null;
      i += m[0].length;
      return Number(m[0]);
    };
    const argAt = (n: number): number => {
      if (n >= args.length) bad('too few arguments for format()');
      return n;
    };
    while (i < f.length) {
      const ch = f[i]!;
      if (ch !== '%') {
        out += ch;
        i++;
        continue;
      }
      i++;
      if (i >= f.length) bad('unterminated format() type specifier', 'For a single "%" use "%%".');
      if (f[i] === '%') {
        out += '%';
        i++;
        continue;
      }
      // Optional "n$" argument position, then flags and width (a number, '*' or '*n$').
      let argIndex: number | null = null;
      const save = i;
      const pos = readNum();
      if (pos !== null && f[i] === '$') {
        if (pos === 0) bad('format specifies argument 0, but arguments are numbered from 1');
        argIndex = pos - 1;
        i++;
      } else {
        i = save;
      }
      let leftAlign = false;
      while (f[i] === '-') {
        leftAlign = true;
        i++;
      }
      let width = 0;
      if (f[i] === '*') {
        i++;
        let wIndex = next;
        const wsave = i;
        const wpos = readNum();
        if (wpos !== null && f[i] === '$') {
          if (wpos === 0) bad('format specifies argument 0, but arguments are numbered from 1');
          wIndex = wpos - 1;
          i++;
        } else {
          i = wsave;
          next++;
        }
        const wv = args[argAt(wIndex)]!;
        width = wv === null ? 0 : Number(wv);
        if (width < 0) {
          leftAlign = true;
          width = -width;
        }
      } else {
        width = readNum() ?? 0;
      }
      if (i >= f.length) bad('unterminated format() type specifier', 'For a single "%" use "%%".');
      const type = f[i]!;
      i++;
      if (type !== 's' && type !== 'I' && type !== 'L') {
        bad(`unrecognized format() type specifier "${type}"`, 'For a single "%" use "%%".');
      }
      const n = argAt(argIndex ?? next);
      next = n + 1;
      const v = args[n]!;
      let s: string;
      if (type === 's') s = v === null ? '' : textAt(n + 1)(v, ctx);
      else if (type === 'L') s = v === null ? 'NULL' : quoteLiteral(textAt(n + 1)(v, ctx));
      else {
        if (v === null) throw err(SQLSTATE.nullValueNotAllowed, 'null values cannot be formatted as an SQL identifier');
        s = quoteIdent(textAt(n + 1)(v, ctx));
      }
      const padLen = width - charLength(s);
      if (padLen > 0) s = leftAlign ? s + ' '.repeat(padLen) : ' '.repeat(padLen) + s;
      out += s;
    }
    return out;
  };
}

const variadic: TypedScalarOverload = {
  args: ['text', 'any'],
  variadic: true,
  nullVariadicArrayIsEmpty: true,
  returns: T.text,
  strict: false,
  fn: formatWith(() => guessTextOf),
  specialize: (argTypes: readonly DataType[]) => formatWith(textOfArgs(argTypes)),
};

registerScalar(
  'format',
  { args: ['text'], returns: T.text, strict: false, fn: formatWith(() => guessTextOf) },
  variadic,
);

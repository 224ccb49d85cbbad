/**
 * The set-returning regular-expression functions: regexp_matches(string, pattern[, flags]) gives one
 * text[] row per match (every match with 'g', else the first), regexp_split_to_table(string, pattern
 * [, flags]) one text row per piece between matches. NULL arguments give no rows, as for any strict
 * set-returning function.
 */
import { QuireError } from '../../common/errors.js';
import { T, typeDisplayName, type DataType, type Value } from '../../common/types.js';
import { BATCH_SIZE, ColumnBuilder, type Batch } from '../../common/column.js';
import type { EvalContext } from '../../functions/eval-context.js';
import { eachMatch, eachPiece } from '../../functions/scalar/support/regex-matches.js';
import { rejectGlobal } from '../../functions/scalar/support/regex-flags.js';
import type { TableFunction, TableFunctionBinding } from './table-function.js';

function textArgs(name: string, argTypes: readonly DataType[], namedArgs: ReadonlyMap<string, Value>): DataType[] {
  const textual = (t: DataType): boolean => t.name === 'unknown' || t.name === 'text' || t.name === 'varchar' || t.name === 'bpchar';
  if (argTypes.length < 2 || argTypes.length > 3 || namedArgs.size > 0 || !argTypes.every(textual)) {
    throw new QuireError('42883', `function ${name}(${argTypes.map(typeDisplayName).join(', ')}) does not exist`, {
      hint: 'No function matches the given name and argument types. You might need to add explicit type casts.',
    });
  }
  return argTypes.map(() => T.text);
}

/** Rows a batch at a time as the matches are found: a long string's millions of pieces are never all held. */
async function* rows(type: DataType, values: Iterable<Value>, signal?: AbortSignal): AsyncGenerator<Batch> {
  let b = new ColumnBuilder(type, BATCH_SIZE);
  for (const v of values) {
    b.push(v);
    if (b.length === BATCH_SIZE) {
      signal?.throwIfAborted();
      yield { columns: [b.finish()], length: BATCH_SIZE };
      b = new ColumnBuilder(type, BATCH_SIZE);
    }
  }
  if (b.length > 0) yield { columns: [b.finish()], length: b.length };
}

function regexTableFunction(name: string, type: DataType, produce: (s: string, p: string, flags: string) => Iterable<Value>): TableFunction {
  return {
    name,
    bind(argTypes, _constArgs, _ctx: EvalContext, namedArgs): TableFunctionBinding {
      const types = textArgs(name, argTypes, namedArgs);
      return {
        schema: [{ name, type }],
        argTypes: types,
        execute(args: readonly Value[], _ctx: EvalContext, signal?: AbortSignal): AsyncGenerator<Batch> {
          if (args.some((a) => a === null)) return rows(type, [], signal);
          return rows(type, produce(args[0] as string, args[1] as string, (args[2] as string | undefined) ?? ''), signal);
        },
      };
    },
  };
}

function* groupsOf(s: string, p: string, flags: string): Generator<Value> {
  for (const m of eachMatch(s, p, flags, flags.includes('g'), false)) yield m.groups;
}

export const regexpMatches = regexTableFunction('regexp_matches', T._text, groupsOf);

export const regexpSplitToTable = regexTableFunction('regexp_split_to_table', T.text, (s, p, flags) => {
  rejectGlobal('regexp_split_to_table', flags);
  return eachPiece(s, p, flags);
});

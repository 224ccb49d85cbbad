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
import { findMatches, splitByRegex } from '../../functions/scalar/support/regex-matches.js';
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

async function* rows(type: DataType, values: readonly Value[], signal?: AbortSignal): AsyncGenerator<Batch> {
  for (let start = 0; start < values.length; start += BATCH_SIZE) {
    signal?.throwIfAborted();
    const end = Math.min(values.length, start + BATCH_SIZE);
    const b = new ColumnBuilder(type, end - start);
    for (let i = start; i < end; i++) b.push(values[i]!);
    yield { columns: [b.finish()], length: end - start };
  }
}

function regexTableFunction(name: string, type: DataType, produce: (s: string, p: string, flags: string) => Value[]): TableFunction {
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

export const regexpMatches = regexTableFunction('regexp_matches', T._text, (s, p, flags) => findMatches(s, p, flags, flags.includes('g'), false).map((m) => m.groups));

export const regexpSplitToTable = regexTableFunction('regexp_split_to_table', T.text, (s, p, flags) => {
  rejectGlobal('regexp_split_to_table', flags);
  return splitByRegex(s, p, flags);
});

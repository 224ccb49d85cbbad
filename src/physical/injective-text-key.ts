/**
 * A computed text partition key split into the values it is made of, when the concatenation is
 * injective: `a || 'sep' || CAST(i AS text)` (i an integer) is the pair (a, i) when sep's last character
 * is not one an integer's text holds ([-0-9]). An integer's text is -?[0-9]+, so in any such string the
 * last occurrence of sep's last character ends sep, which fixes where i starts: equal strings have equal
 * (a, i), and unequal pairs give unequal strings. (The mirror, `CAST(i AS text) || 'sep' || a` with sep's
 * first character not in [-0-9], splits at the first such character.)
 *
 * Why: partitioning on the parts hashes no string built per row: a stored text column keeps its
 * dictionary codes and an integer reads a direct table. The concatenation is NULL when any part is, so
 * the caller must treat a NULL in any part as the one NULL key (PartitionIds' `together` groups).
 */
import type { Expr } from '../logical/expr.js';

const INTEGER = new Set(['int2', 'int4', 'int8']);
const TEXT = new Set(['text', 'varchar']);

/** The parts of `e`, or null when it is not such a concatenation. */
export function injectiveTextParts(e: Expr): Expr[] | null {
  const parts = concatParts(e);
  if (parts === null || parts.length < 3) return null;
  const last = parts[parts.length - 1]!;
  const sep = parts[parts.length - 2]!;
  const tail = intText(last);
  const sepText = literalText(sep);
  if (tail !== null && sepText !== null && sepText.length > 0 && !intChar(sepText.charCodeAt(sepText.length - 1))) {
    return [rebuild(parts.slice(0, -2), e), tail];
  }
  const head = intText(parts[0]!);
  const sep2 = literalText(parts[1]!);
  if (head !== null && sep2 !== null && sep2.length > 0 && !intChar(sep2.charCodeAt(0))) {
    return [head, rebuild(parts.slice(2), e)];
  }
  return null;
}

function intChar(u: number): boolean {
  return u === 45 || (u >= 48 && u <= 57);
}

/** The operands of a chain of text || text, left to right; null when e is not one. */
function concatParts(e: Expr): Expr[] | null {
  if (e.kind !== 'call' || e.name !== '||' || e.args.length !== 2 || !TEXT.has(e.type.name)) return null;
  const out: Expr[] = [];
  for (const a of e.args) {
    if (!TEXT.has(a.type.name)) return null;
    out.push(...(concatParts(a) ?? [a]));
  }
  return out;
}

/** i when e is CAST(i AS text) of an integer i. */
function intText(e: Expr): Expr | null {
  return e.kind === 'cast' && TEXT.has(e.type.name) && e.type.name === 'text' && INTEGER.has(e.arg.type.name) ? e.arg : null;
}

function literalText(e: Expr): string | null {
  return e.kind === 'const' && typeof e.value === 'string' ? e.value : null;
}

/** The concatenation of `parts` (one part is itself), with the operator of `like`. */
function rebuild(parts: Expr[], like: Expr & { kind: 'call' }): Expr;
function rebuild(parts: Expr[], like: Expr): Expr;
function rebuild(parts: Expr[], like: Expr): Expr {
  let acc = parts[0]!;
  for (let i = 1; i < parts.length; i++) acc = { ...(like as Expr & { kind: 'call' }), args: [acc, parts[i]!] };
  return acc;
}

/**
 * The matches regexp_matches and regexp_split_to_* work from, as PostgreSQL finds them: scanning left to
 * right, a search after an empty match resumes one character further on. Splitting ignores degenerate
 * matches, as PostgreSQL does: an empty match at the start or the end of the string, and one that ends
 * where the previous match ended.
 */
import { compileRegex } from './regex.js';
import { detach, detachAll } from './text.js';
import { arrayTooLarge, MAX_ARRAY_ELEMENTS } from './array-limit.js';

export interface RegexMatch {
  readonly start: number;
  readonly end: number;
  /** The capture groups (NULL where a group did not take part), or the whole match when there are none. */
  readonly groups: (string | null)[];
}

export function findMatches(s: string, pattern: string, flags: string, all: boolean, forSplit: boolean): RegexMatch[] {
  return [...eachMatch(s, pattern, flags, all, forSplit)];
}

/** findMatches one at a time, so a caller can stream the rows of a long string's many matches. */
export function* eachMatch(s: string, pattern: string, flags: string, all: boolean, forSplit: boolean): Generator<RegexMatch> {
  const re = compileRegex(pattern, flags.replaceAll('g', ''), true);
  let prevEnd = 0;
  let from = 0;
  while (from <= s.length) {
    re.lastIndex = from;
    const m = re.exec(s);
    if (m === null) break;
    const start = m.index;
    const end = start + m[0].length;
    if (!forSplit || (start < s.length && end > prevEnd)) {
      yield { start, end, groups: m.length === 1 ? [detach(m[0], s)] : detachAll(m.slice(1).map((g) => g ?? null), s) };
    }
    prevEnd = end;
    if (!all) break;
    from = end === start ? end + (end < s.length && s.codePointAt(end)! > 0xffff ? 2 : 1) : end;
  }
}

/** s cut at every match of pattern (regexp_split_to_array / _table). */
export function splitByRegex(s: string, pattern: string, flags: string): string[] {
  const out: string[] = [];
  for (const piece of eachPiece(s, pattern, flags)) {
    if (out.length === MAX_ARRAY_ELEMENTS) throw arrayTooLarge();
    out.push(piece);
  }
  return out;
}

export function* eachPiece(s: string, pattern: string, flags: string): Generator<string> {
  let last = 0;
  for (const m of eachMatch(s, pattern, flags, true, true)) {
    yield detach(s.slice(last, m.start), s);
    last = m.end;
  }
  yield detach(s.slice(last), s);
}

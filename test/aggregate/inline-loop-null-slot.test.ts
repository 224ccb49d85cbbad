/**
 * The one-pass aggregate loop over dictionary codes read through the NULL slot (KeyLookup.nullSlot in
 * hash-aggregate.ts): the table at code + 1, its entry 0 the NULL group's id + 1, NULL rows coded -1.
 * A NULL key goes to the NULL group without its flag being read, and the loop stops at a NULL key
 * while there is no NULL group (entry 0 still 0), as at any key without a group.
 */
import { describe, expect, it } from 'vitest';
import type { InlineStep } from '../../src/functions/aggregate/aggregate-function.js';
import { inlineAggregateLoop } from '../../src/physical/inline-aggregate-loop.js';

/** count(*) into counts[g], untallied, so each row's group shows in the counts. */
function countStep(counts: Float64Array): InlineStep {
  return { refs: [counts], argUnused: true, code: (ref, g) => ({ compute: '', ok: 'true', store: `${ref(0)}[${g}]++;` }) };
}

/** Codes of 40 rows: code i % 5 (entries 0..4), -1 (NULL) on every 7th row from row 3. */
function codes(): { keys: Int32Array; nulls: Uint8Array } {
  const keys = new Int32Array(40);
  const nulls = new Uint8Array(40);
  for (let i = 0; i < 40; i++) {
    const isNull = i % 7 === 3;
    keys[i] = isNull ? -1 : i % 5;
    nulls[i] = isNull ? 1 : 0;
  }
  return { keys, nulls };
}

describe('inline aggregate loop, NULL slot', () => {
  it('sends NULL keys (code -1) to the NULL group at entry 0 and every other code to its entry at code + 1', () => {
    const { keys } = codes();
    // Codes 0..4 map to groups 4, 3, 2, 1, 0; the NULL group is group 5.
    const table = new Int32Array([6, 5, 4, 3, 2, 1]);
    const counts = new Float64Array(6);
    const loop = inlineAggregateLoop([countStep(counts)], [-1], false, false, true);
    const end = loop(keys, table, null, 0, keys.length, [], [counts], new Int32Array(6), null, 5, []);
    expect(end).toBe(keys.length);
    const expected = new Float64Array(6);
    for (const k of keys) expected[k < 0 ? 5 : 4 - k]!++;
    expect([...counts]).toEqual([...expected]);
    expect(counts[5]).toBe(6);
  });

  it('reads the rows a selection names', () => {
    const { keys } = codes();
    const table = new Int32Array([6, 5, 4, 3, 2, 1]);
    const counts = new Float64Array(6);
    const sel = new Uint32Array([0, 3, 10, 17, 24, 30, 31]);
    const loop = inlineAggregateLoop([countStep(counts)], [-1], false, false, true);
    expect(loop(keys, table, sel, 0, sel.length, [], [counts], new Int32Array(6), null, 5, [])).toBe(sel.length);
    // Rows 3, 10, 17, 24, 31 are NULL; row 0 is code 0 (group 4), row 30 code 0 (group 4).
    expect([...counts]).toEqual([0, 0, 0, 0, 2, 5]);
  });

  it('stops at the first NULL key while there is no NULL group, and at a code without a group', () => {
    const { keys } = codes();
    const counts = new Float64Array(6);
    const loop = inlineAggregateLoop([countStep(counts)], [-1], false, false, true);
    // No NULL group yet: entry 0 is 0; row 3 is the first NULL.
    expect(loop(keys, new Int32Array([0, 5, 4, 3, 2, 1]), null, 0, keys.length, [], [counts], new Int32Array(6), null, -1, [])).toBe(3);
    expect([...counts]).toEqual([0, 0, 1, 1, 1, 0]);
    // Code 4 has no group yet: row 4 is its first.
    counts.fill(0);
    expect(loop(keys, new Int32Array([6, 5, 4, 3, 2, 0]), null, 0, keys.length, [], [counts], new Int32Array(6), null, 5, [])).toBe(4);
    // Past the table: a code of the dictionary's entries the table has no room for yet.
    counts.fill(0);
    expect(loop(keys, new Int32Array([6, 5, 4]), null, 0, keys.length, [], [counts], new Int32Array(6), null, 5, [])).toBe(2);
  });

  it('reads NULL flags, not codes, when generated without the slot', () => {
    const { keys, nulls } = codes();
    // The same rows with a non-negative code on NULL rows: only their flags tell them apart.
    const flagged = keys.map((k, i) => (k < 0 ? i % 5 : k));
    const counts = new Float64Array(6);
    const loop = inlineAggregateLoop([countStep(counts)], [-1], false, true, false);
    expect(loop(flagged, new Int32Array([5, 4, 3, 2, 1]), null, 0, keys.length, [], [counts], new Int32Array(6), nulls, 5, [])).toBe(keys.length);
    expect(counts[5]).toBe(6);
  });
});

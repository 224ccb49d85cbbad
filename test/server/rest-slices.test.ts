/** Large REST answers are serialized in slices (yielding between them): the text is the same as in one piece. */
import { describe, expect, it } from 'vitest';
import { T } from '../../src/index.js';
import { jdbcBody, jdbcText, jsonBody, jsonText, type ResultSet } from '../../src/server/rest/formats.js';

function result(n: number): ResultSet {
  return {
    columns: [
      { name: 'i', type: T.int4 },
      { name: 's', type: T.text, alias: 'label' },
      { name: 'f', type: T.float8 },
    ],
    rows: Array.from({ length: n }, (_, i) => [i, i % 7 === 0 ? null : `row "${i}"\n`, i / 3]),
    cursor: n > 2 ? 'c' : null,
  };
}

describe('REST bodies built in slices', () => {
  for (const n of [0, 1, 2000, 2001, 4500]) {
    it(`${n} rows: jdbc and json text equal the one-piece JSON`, async () => {
      const r = result(n);
      expect(await jdbcText(r, 'UTC')).toBe(JSON.stringify(jdbcBody(r, 'UTC')));
      const info = { tookMs: 3, index: 't' };
      expect(await jsonText(r, 'UTC', info)).toBe(JSON.stringify(jsonBody(r, 'UTC', info)));
    });
  }
});

/**
 * The most elements a function may build into one array. PostgreSQL stops at MaxArraySize (2^27 − 1);
 * a JavaScript array holds an 8-byte reference per element plus the values, so one built from a long
 * string (string_to_array(s, NULL) of a few hundred million characters) would exhaust the heap and kill
 * the process first. The bound is therefore also a share of the heap: a 54000 error, not a crash.
 */
import { getHeapStatistics } from 'node:v8';
import { QuireError } from '../../../common/errors.js';

const PG_MAX_ARRAY_SIZE = 134217727;

/** About 32 bytes of heap per element (reference, boxed or short string value, headroom). */
export const MAX_ARRAY_ELEMENTS = Math.min(PG_MAX_ARRAY_SIZE, Math.floor(getHeapStatistics().heap_size_limit / 32));

export function arrayTooLarge(): QuireError {
  return new QuireError('54000', `array size exceeds the maximum allowed (${MAX_ARRAY_ELEMENTS})`, {
    hint: MAX_ARRAY_ELEMENTS < PG_MAX_ARRAY_SIZE ? 'The bound follows the server\'s heap size (node --max-old-space-size).' : undefined,
  });
}

export function checkArrayLength(n: number): void {
  if (n > MAX_ARRAY_ELEMENTS) throw arrayTooLarge();
}

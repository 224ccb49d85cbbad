/**
 * PostgreSQL's `name`: an identifier-sized string held in a fixed NAMEDATALEN-byte field, so at most
 * NAMEDATALEN-1 = 63 bytes of UTF-8. Input (namein, and every cast to name) cuts longer strings at the
 * last whole character that fits, silently, which is why `name` columns can never hold a longer value.
 */
import { QuireError } from './errors.js';

export const NAMEDATALEN = 64;

/** The longest prefix of `s` of at most NAMEDATALEN-1 UTF-8 bytes that ends on a character boundary. */
export function truncateName(s: string): string {
  // Fast path: 63 UTF-16 units can be at most 63 * 3 bytes; below 22 units no string can exceed 63 bytes.
  if (s.length <= 21) return s;
  let bytes = 0;
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    let width: number;
    let units = 1;
    if (c < 0x80) width = 1;
    else if (c < 0x800) width = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      width = 4;
      units = 2;
    } else width = 3;
    if (bytes + width > NAMEDATALEN - 1) return s.slice(0, i);
    bytes += width;
    i += units;
  }
  return s;
}

/**
 * namerecv: a binary value must already fit, unlike text input, which is cut.
 */
export function checkNameBytes(byteLength: number): void {
  if (byteLength >= NAMEDATALEN) {
    throw new QuireError('42622', 'identifier too long', { detail: `Identifier must be less than ${NAMEDATALEN} characters.` });
  }
}

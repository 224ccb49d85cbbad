/**
 * Pagination errors. They are QuireErrors (so every layer that already maps SQLSTATEs keeps working)
 * with a `kind` the REST server turns into an OpenSearch-style error type. All are client errors:
 * a bad cursor must never surface as a 500 (opensearch-project/sql#3066).
 */
import { QuireError } from '../common/errors.js';

export type PagingErrorKind =
  /** Not a cursor, bad signature, unknown key id, undecodable payload. */
  | 'CursorInvalid'
  /** Signed by us but a format version this engine does not read. */
  | 'CursorVersion'
  /** Past its expiry time. */
  | 'CursorExpired'
  /** The query no longer means what it meant on page 1 (a table or view it reads was redefined, or the engine changed). */
  | 'CursorStale'
  /** Closed through /close (or Pager.close): refused for the rest of its life. */
  | 'CursorClosed'
  /** The list of closed cursors is full (MemoryRevocations); the close is refused, not forgotten. */
  | 'TooManyClosed'
  /** The query cannot be paged (and the caller did not accept a fallback). */
  | 'PaginationUnsupported'
  /** fetch_size / parameters out of range. */
  | 'InvalidArgument';

const SQLSTATE: Record<PagingErrorKind, string> = {
  CursorInvalid: '34000', // invalid_cursor_name: the closest PostgreSQL class for "no such cursor"
  CursorVersion: '34000',
  CursorExpired: '34000',
  CursorStale: '34000',
  CursorClosed: '34000',
  TooManyClosed: '53400', // configuration_limit_exceeded
  PaginationUnsupported: '0A000',
  InvalidArgument: '22023',
};

export class PagingError extends QuireError {
  constructor(
    readonly kind: PagingErrorKind,
    message: string,
    opts: { detail?: string; hint?: string } = {},
  ) {
    super(SQLSTATE[kind], message, opts);
    this.name = 'PagingError';
  }

  /** The REST status of a paging error: 429 when the closed-cursor list is full, else 400 (see server/rest/errors.ts for all others). */
  get httpStatus(): number {
    return this.kind === 'TooManyClosed' ? 429 : 400;
  }
}

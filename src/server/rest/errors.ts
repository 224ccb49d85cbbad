/**
 * OpenSearch-shaped error bodies, as the SQL plugin sends them and its JDBC/ODBC drivers read them:
 *
 *   {"error": {"reason", "details", "type"[, "sqlstate", "position"]}, "status": <http code>}
 *
 * `reason` is OpenSearch's fixed wording by status: "Invalid Query" for 400 and "There was internal
 * problem at backend" for 5xx; a missing table is OpenSearch's missing index ("Error occurred in
 * OpenSearch engine: no such index [name]", 404). Other statuses the plugin never sends (401, 403,
 * 408, 413, 415, 429) carry the HTTP reason phrase. `details` is the message a client shows (with
 * PostgreSQL's detail and hint appended), `type` the exception class OpenSearch would name.
 * `sqlstate` and `position` are extras for clients that know PostgreSQL codes.
 *
 * Every failure a client can cause maps to a 4xx; a 5xx means the server (or a server it depends
 * on) failed, never the request itself, and its details never include a stack trace
 * (opensearch-project/sql#3066): the stack goes to the server's log.
 *
 * SQLSTATE → type: 42601 SyntaxCheckException, 42P01 IndexNotFoundException, other 42 (names,
 * types, privileges) SemanticCheckException, 22 (data) ExpressionEvaluationException, 57014
 * QueryTimeoutException, 54 / 53200 ResourceLimitException, other 5xx QueryEngineException, the rest
 * IllegalArgumentException.
 *
 * SQLSTATE class → HTTP status (httpStatusOf):
 *
 *   57014 query_canceled (time limit)                         408
 *   42501 insufficient_privilege, 25006 read_only_sql_transaction
 *         (what the server's flags do not grant)               403
 *   42P01 undefined_table, 3D000 invalid_catalog_name,
 *   58P01 undefined_file                                      404
 *   08 connection exception (an ATTACHed server failed)       502
 *   53100 disk_full, 53300 too_many_connections,
 *   57 operator intervention (shutdown …), other 58 (I/O)     503
 *   XX internal error (a bug)                                 500
 *   everything else, including 54 program_limit_exceeded (statement too complex, string too long)
 *   and 53200 out_of_memory (the statement needs more than its memory budget)        400
 */
import { STATUS_CODES } from 'node:http';
import { QuireError } from '../../common/errors.js';
import { PagingError } from '../../cursor/errors.js';
import { toQuireError } from '../to-quire-error.js';

export interface ErrorBody {
  error: { reason: string; details: string; type: string; sqlstate?: string; position?: number };
  status: number;
}

/** A request-level failure: `message` becomes the body's details, `hint` is appended to it. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly hint = '',
  ) {
    super(message);
  }
}

export const INVALID_QUERY = 'Invalid Query';
export const BACKEND_PROBLEM = 'There was internal problem at backend';

/** OpenSearch's reason for a status (see the header). */
export function reasonFor(status: number): string {
  if (status === 400) return INVALID_QUERY;
  if (status >= 500) return BACKEND_PROBLEM;
  return STATUS_CODES[status] ?? 'Error';
}

export function errorBody(status: number, type: string, details: string, extra: { reason?: string; sqlstate?: string; position?: number } = {}): ErrorBody {
  const error: ErrorBody['error'] = { reason: extra.reason ?? reasonFor(status), details, type };
  if (extra.sqlstate !== undefined) error.sqlstate = extra.sqlstate;
  if (extra.position !== undefined) error.position = extra.position;
  return { error, status };
}

const joinText = (...parts: (string | undefined)[]): string =>
  parts
    .filter((p): p is string => p !== undefined && p !== '')
    .map((p, i, all) => (i < all.length - 1 && !/[.!?]$/.test(p) ? `${p}.` : p))
    .join(' ');

/** Maps anything thrown while handling a request to a status and body. */
export function toErrorBody(e: unknown): ErrorBody {
  if (e instanceof HttpError) return errorBody(e.status, e.type, joinText(e.message, e.hint));
  if (e instanceof PagingError) {
    const type = e.kind === 'InvalidArgument' ? 'IllegalArgumentException' : `${e.kind}Exception`;
    return errorBody(e.httpStatus, type, joinText(e.message, e.detail, e.hint), { sqlstate: e.code });
  }
  if (isFrameworkError(e)) {
    // Fastify's own errors (body too large, bad JSON, bad content type) carry a statusCode.
    const status = e.statusCode;
    if (status >= 400 && status < 500) return errorBody(status, status === 413 ? 'RequestTooLargeException' : 'IllegalArgumentException', e.message);
  }
  const q = toQuireError(e);
  const status = httpStatusOf(q.code);
  if (status === 500) return errorBody(500, 'InternalServerError', 'internal error; the server logged the failure', { sqlstate: q.code });
  const extra = { sqlstate: q.code, ...(q.position ? { position: q.position } : {}) };
  const details = joinText(q.message, q.detail, q.hint ? `Hint: ${q.hint}` : undefined);
  if (q.code === '42P01') {
    // OpenSearch's words for a missing index; the relation's name as the client wrote it.
    const name = /"([^"]+)"/.exec(q.message)?.[1] ?? q.message;
    return errorBody(404, 'IndexNotFoundException', details, { ...extra, reason: `Error occurred in OpenSearch engine: no such index [${name}]` });
  }
  const type = exceptionType(q.code, status);
  return errorBody(status, type, details, extra);
}

/** The OpenSearch exception class named in `type` for a SQLSTATE answered with `status`. */
function exceptionType(code: string, status: number): string {
  if (status === 403) return 'SecurityException';
  if (code === '57014') return 'QueryTimeoutException';
  if (code === '42601') return 'SyntaxCheckException';
  if (code.startsWith('42')) return 'SemanticCheckException';
  if (code.startsWith('22')) return 'ExpressionEvaluationException';
  if (code.startsWith('54') || code === '53200') return 'ResourceLimitException';
  return status >= 500 ? 'QueryEngineException' : 'IllegalArgumentException';
}

export function httpStatusOf(code: string): number {
  const cls = code.slice(0, 2);
  if (code === '57014') return 408;
  if (code === '42501' || code === '25006') return 403;
  if (code === '42P01' || code === '3D000' || code === '58P01') return 404;
  if (cls === '08') return 502;
  if (code === '53100' || code === '53300' || cls === '57' || cls === '58') return 503;
  if (cls === 'XX') return 500;
  return 400;
}

function isFrameworkError(e: unknown): e is Error & { statusCode: number } {
  return e instanceof Error && !(e instanceof QuireError) && 'statusCode' in e && typeof (e as { statusCode: unknown }).statusCode === 'number';
}

/**
 * OpenSearch-shaped error bodies: {"error": {"reason", "details", "type"}, "status": <http code>}.
 * Every failure a client can cause maps to a 4xx with a short reason; a 5xx means the server (or a
 * server it depends on) failed, never the request itself, and its details never include a stack
 * trace (opensearch-project/sql#3066): the stack goes to the server's log.
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
import { QuireError } from '../../common/errors.js';
import { PagingError } from '../../cursor/errors.js';
import { toQuireError } from '../to-quire-error.js';

export interface ErrorBody {
  error: { reason: string; details: string; type: string };
  status: number;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly details = '',
  ) {
    super(message);
  }
}

export function errorBody(status: number, type: string, reason: string, details = ''): ErrorBody {
  return { error: { reason, details, type }, status };
}

/** Maps anything thrown while handling a request to a status and body. */
export function toErrorBody(e: unknown): ErrorBody {
  if (e instanceof HttpError) return errorBody(e.status, e.type, e.message, e.details);
  if (e instanceof PagingError) {
    const type = e.kind === 'InvalidArgument' ? 'IllegalArgumentException' : `${e.kind}Exception`;
    return errorBody(e.httpStatus, type, e.message, [e.detail, e.hint].filter(Boolean).join(' '));
  }
  if (isFrameworkError(e)) {
    // Fastify's own errors (body too large, bad JSON, bad content type) carry a statusCode.
    const status = e.statusCode;
    if (status >= 400 && status < 500) return errorBody(status, status === 413 ? 'RequestTooLargeException' : 'IllegalArgumentException', e.message);
  }
  const q = toQuireError(e);
  const status = httpStatusOf(q.code);
  if (status === 500) return errorBody(500, 'InternalServerError', 'internal error', 'The server logged the failure.');
  const type =
    q.code === '57014'
      ? 'QueryTimeoutException'
      : q.code === '42601'
        ? 'SyntaxCheckException'
        : q.code.startsWith('42')
          ? 'SemanticCheckException'
          : q.code.startsWith('54') || q.code === '53200'
            ? 'ResourceLimitException'
            : status >= 500
              ? 'QueryEngineException'
              : 'IllegalArgumentException';
  const details = [`SQLSTATE ${q.code}`, q.position ? `at character ${q.position}` : '', q.detail ?? '', q.hint ? `Hint: ${q.hint}` : ''].filter(Boolean).join('. ');
  return errorBody(status, type, q.message, details);
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

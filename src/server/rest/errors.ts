/**
 * OpenSearch-shaped error bodies: {"error": {"reason", "details", "type"}, "status": <http code>}.
 * Every failure a client can cause maps to a 4xx with a short reason; internal errors are a 500
 * whose details never include a stack trace (opensearch-project/sql#3066).
 */
import { QuireError } from '../../common/errors.js';
import { PagingError } from '../../cursor/errors.js';

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
    return errorBody(400, type, e.message, [e.detail, e.hint].filter(Boolean).join(' '));
  }
  if (e instanceof QuireError) {
    const status = e.code === '57014' ? 408 : e.httpStatus;
    const type =
      e.code === '57014'
        ? 'QueryTimeoutException'
        : e.code === '42601'
          ? 'SyntaxCheckException'
          : e.code.startsWith('42')
            ? 'SemanticCheckException'
            : status >= 500
              ? 'QueryEngineException'
              : 'IllegalArgumentException';
    const details = [`SQLSTATE ${e.code}`, e.position ? `at character ${e.position}` : '', e.detail ?? '', e.hint ? `Hint: ${e.hint}` : ''].filter(Boolean).join('. ');
    return errorBody(status, type, e.message, details);
  }
  // Fastify's own errors (body too large, bad JSON, bad content type) carry a statusCode.
  if (e !== null && typeof e === 'object' && 'statusCode' in e && typeof (e as { statusCode: unknown }).statusCode === 'number') {
    const status = (e as { statusCode: number }).statusCode;
    const msg = e instanceof Error ? e.message : 'bad request';
    if (status >= 400 && status < 500) return errorBody(status, status === 413 ? 'RequestTooLargeException' : 'IllegalArgumentException', msg);
  }
  return errorBody(500, 'InternalServerError', 'internal error', 'The server logged the failure.');
}

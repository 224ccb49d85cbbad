/**
 * The servers' structured log: one JSON line per event (pino, the logger fastify is built on).
 * REST and pgwire share one instance so both ports write to the same stream with the same level.
 *
 * Library users get no log unless they pass a logger: embedding applications own their output.
 */
import pino from 'pino';

/** The part of pino's Logger the servers use; a pino logger satisfies it, so does `silentLogger`. */
export interface ServerLogger {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const noop = (): void => undefined;
export const silentLogger: ServerLogger = { error: noop, warn: noop, info: noop, debug: noop };

/** JSON lines on stderr (stdout stays free for a client's own use of the process). */
export function createServerLogger(level: LogLevel): pino.Logger {
  return pino({ level, base: { pid: process.pid } }, pino.destination({ fd: 2, sync: false }));
}

/** Longest SQL text copied into a log line; the rest is cut and its length noted. */
const MAX_LOGGED_SQL = 2000;

export function sqlForLog(sql: string): string {
  return sql.length <= MAX_LOGGED_SQL ? sql : `${sql.slice(0, MAX_LOGGED_SQL)}… (${sql.length} characters)`;
}

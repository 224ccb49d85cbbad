/**
 * Error messages as psql prints them (libpq's pqBuildErrorMessage3 at default verbosity):
 *
 *   ERROR:  column "x" does not exist
 *   LINE 1: select x from t
 *                  ^
 *   DETAIL:  ...
 *   HINT:  ...
 */
import { displayWidth } from './format-table.js';

/** What the CLI needs from a thrown error; QuireError has all of it, other errors only a message. */
export interface ReportableError {
  readonly message: string;
  readonly code?: string;
  /** 1-based character offset into the statement text, 0 if unknown. */
  readonly position?: number;
  readonly detail?: string;
  readonly hint?: string;
}

export function toReportable(e: unknown): ReportableError {
  if (e instanceof Error) {
    const o = e as Error & { code?: unknown; position?: unknown; detail?: unknown; hint?: unknown };
    return {
      message: e.message,
      code: typeof o.code === 'string' ? o.code : undefined,
      position: typeof o.position === 'number' ? o.position : undefined,
      detail: typeof o.detail === 'string' ? o.detail : undefined,
      hint: typeof o.hint === 'string' ? o.hint : undefined,
    };
  }
  return { message: String(e) };
}

/** The full message block, every line newline-terminated. */
export function formatError(e: ReportableError, query: string | undefined): string {
  let out = `ERROR:  ${e.message}\n`;
  if (query !== undefined && e.position !== undefined && e.position > 0) out += errorPosition(query, e.position);
  if (e.detail !== undefined) out += `DETAIL:  ${e.detail}\n`;
  if (e.hint !== undefined) out += `HINT:  ${e.hint}\n`;
  return out;
}

/** Screen width limit of the LINE excerpt, and how far from its end the caret should stay. */
const DISPLAY_SIZE = 60;
const MIN_RIGHT_CUT = 10;

/**
 * libpq's reportErrorPosition: the line holding the error, cut to about 60 columns around the
 * error with "..." marks, and a caret under the offending character.
 */
export function errorPosition(query: string, position: number): string {
  const chars = Array.from(query);
  const loc = position - 1;
  if (loc < 0) return '';
  // Tabs become spaces so that the caret line, which counts columns, stays under the text.
  const text = chars.map((c) => (c === '\t' ? ' ' : c));
  // scr[i]: screen column where character i starts.
  const scr: number[] = [];
  let col = 0;
  let line = 1;
  let ibeg = 0;
  let iend = -1;
  let cno = 0;
  for (; cno < text.length; cno++) {
    const ch = text[cno];
    scr[cno] = col;
    if (ch === '\r' || ch === '\n') {
      if (cno < loc) {
        // "\r\n" counts as one line break.
        if (ch === '\r' || cno === 0 || text[cno - 1] !== '\r') line++;
        ibeg = cno + 1;
      } else {
        iend = cno;
        break;
      }
    }
    col += Math.max(1, displayWidth(ch));
  }
  if (iend < 0) {
    iend = cno;
    scr[iend] = col;
  }
  if (loc > cno) return '';

  let begTrunc = false;
  let endTrunc = false;
  if (scr[iend] - scr[ibeg] > DISPLAY_SIZE) {
    if (scr[ibeg] + DISPLAY_SIZE >= scr[loc] + MIN_RIGHT_CUT) {
      while (scr[iend] - scr[ibeg] > DISPLAY_SIZE) iend--;
      endTrunc = true;
    } else {
      while (scr[loc] + MIN_RIGHT_CUT < scr[iend]) {
        iend--;
        endTrunc = true;
      }
      while (scr[iend] - scr[ibeg] > DISPLAY_SIZE) {
        ibeg++;
        begTrunc = true;
      }
    }
  }
  const prefix = `LINE ${line}: ` + (begTrunc ? '...' : '');
  const excerpt = text.slice(ibeg, iend).join('');
  const caretCol = displayWidth(prefix) + scr[loc] - scr[ibeg];
  return `${prefix}${excerpt}${endTrunc ? '...' : ''}\n${' '.repeat(caretCol)}^\n`;
}

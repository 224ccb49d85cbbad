/**
 * The REPL's persistent history: one entry per line of a file, oldest first, like psql's
 * ~/.psql_history. QUIRE_HISTORY names another file (psql's PSQL_HISTORY); an empty value keeps
 * no history. node:readline holds history newest first, hence the reversals.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const HISTORY_SIZE = 1000;

export function historyFile(env: NodeJS.ProcessEnv = process.env): string | null {
  const named = env.QUIRE_HISTORY;
  if (named !== undefined) return named === '' ? null : named;
  return join(homedir(), '.quire_history');
}

/** Entries newest first, as readline's `history` option takes them; none when there is no file. */
export function loadHistory(file: string | null): string[] {
  if (file === null) return [];
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .reverse()
      .slice(0, HISTORY_SIZE);
  } catch {
    return [];
  }
}

/** Writes readline's history (newest first) back, oldest first; an unwritable file only costs the history. */
export function saveHistory(file: string | null, newestFirst: readonly string[]): void {
  if (file === null) return;
  try {
    writeFileSync(file, [...newestFirst.slice(0, HISTORY_SIZE)].reverse().join('\n') + '\n');
  } catch {
    // No history rather than no exit.
  }
}

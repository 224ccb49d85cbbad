/**
 * What a session may do beyond reading tables: the one place both servers' privileges are decided.
 * Every path that runs SQL (Database.execute, prepareSelect, the utility executor, hence REST,
 * paging, the PostgreSQL protocol's simple and extended queries, PREPARE/EXECUTE and cursors) asks
 * the session's policy before it runs a statement, so a port cannot forget a check.
 *
 * Read-only refusals are 25006 ("cannot execute X in a read-only transaction"), as a PostgreSQL
 * read-only transaction answers; settings that change the server and network access are 42501.
 */
import type { Node, SelectStmt } from '@pgsql/types';
import { QuireError } from '../common/errors.js';
import { nodeBody, nodeTag, type AnyNode } from '../sql/ast.js';
import { lockingItems, lockingText } from '../sql/locking-clause.js';
import { FileAccess } from '../storage/file-access.js';
import type { FileGate } from '../functions/eval-context.js';

export interface AccessOptions {
  /** Statements that change tables, views, files or the catalog (DDL, DML, COPY FROM, COPY TO a file, ATTACH). Default true. */
  allowWrites?: boolean;
  /**
   * Directories SQL may open files in (read_* table functions, COPY FROM/TO a file); paths and globs
   * are resolved with realpath and must stay inside. Absent: any path the process can open. Given
   * (even empty): confined, and attaching remote databases is refused too.
   */
  allowFiles?: readonly string[];
  /** Settings a client may not SET or RESET (server resources). Default: none; servers lock SERVER_SETTINGS. */
  lockedSettings?: readonly string[];
}

/** Settings whose value bounds or places the server's resources: a client must not change them. */
export const SERVER_SETTINGS: readonly string[] = ['memory_limit', 'temp_directory', 'max_temp_directory_size'];

/** Statement tags that only read (or only change the client's own session state). */
const READING = new Set([
  'VariableShowStmt',
  'TransactionStmt',
  'FetchStmt',
  'ClosePortalStmt',
  'DiscardStmt',
  'DeallocateStmt',
]);

/** PostgreSQL's command names for the read-only message. */
const COMMAND: Record<string, string> = {
  CreateStmt: 'CREATE TABLE',
  CreateTableAsStmt: 'CREATE TABLE AS',
  ViewStmt: 'CREATE VIEW',
  InsertStmt: 'INSERT',
  UpdateStmt: 'UPDATE',
  DeleteStmt: 'DELETE',
  MergeStmt: 'MERGE',
  TruncateStmt: 'TRUNCATE TABLE',
  IndexStmt: 'CREATE INDEX',
  VacuumStmt: 'VACUUM',
  AlterTableStmt: 'ALTER TABLE',
  RenameStmt: 'ALTER',
  CreateSchemaStmt: 'CREATE SCHEMA',
  CreateFunctionStmt: 'CREATE FUNCTION',
  DefineStmt: 'CREATE AGGREGATE',
  CompositeTypeStmt: 'CREATE TYPE',
};

const DML = new Set(['InsertStmt', 'UpdateStmt', 'DeleteStmt', 'MergeStmt']);

export class AccessPolicy {
  readonly allowWrites: boolean;
  /** undefined: unconfined. */
  readonly files: FileGate | undefined;
  private readonly locked: ReadonlySet<string>;

  constructor(opts: AccessOptions = {}) {
    this.allowWrites = opts.allowWrites ?? true;
    this.files = opts.allowFiles === undefined ? undefined : new FileAccess(opts.allowFiles);
    this.locked = new Set((opts.lockedSettings ?? []).map((s) => s.toLowerCase()));
  }

  /** The library's default: everything the process may do. */
  static readonly full = new AccessPolicy();

  /** Whether network connections (ATTACH of a remote database) are allowed: only unconfined sessions. */
  get allowNetwork(): boolean {
    return this.files === undefined;
  }

  /**
   * Throws unless the statement may run. `prepared` looks up a PREPAREd statement for EXECUTE.
   * Checks every statement of a multi-statement string before any runs, when called per statement
   * by the caller's loop first (Database.checkStatements).
   */
  check(stmt: Node, prepared?: (name: string) => Node | undefined): void {
    const tag = nodeTag(stmt) ?? '';
    if (READING.has(tag)) return;
    // Before reading the body: a literal INSERT's body is built only when something reads it.
    if (tag === 'InsertStmt') return this.write(COMMAND[tag] ?? commandName(tag));
    const b = nodeBody<AnyNode>(stmt);
    switch (tag) {
      case 'SelectStmt':
        if (b.intoClause) return this.write('SELECT INTO');
        return this.checkNested(stmt);
      case 'ExplainStmt': {
        const analyze = ((b.options as Node[] | undefined) ?? []).some((o) => {
          const d = nodeBody<AnyNode>(o);
          return d.defname === 'analyze' && (d.arg === undefined || !/^(false|off|0)$/i.test(String(nodeBody<AnyNode>(d.arg as Node).sval ?? nodeBody<AnyNode>(d.arg as Node).ival ?? '')));
        });
        // Plain EXPLAIN only plans, whatever it plans (PostgreSQL allows it in a read-only transaction);
        // EXPLAIN ANALYZE runs its statement.
        if (analyze) return this.check(b.query as Node, prepared);
        return;
      }
      case 'VariableSetStmt': {
        const kind = b.kind as string;
        const name = String(b.name ?? '').toLowerCase();
        if (kind === 'VAR_RESET_ALL' || kind === 'VAR_SET_MULTI') return;
        if (this.locked.has(name)) throw new QuireError('42501', `permission denied to set parameter "${name}"`, { hint: 'This setting is fixed by the server (quire serve --memory-limit / --temp-dir).' });
        return;
      }
      case 'CopyStmt': {
        if (b.is_program) throw new QuireError('42501', 'COPY to or from an external program is not allowed');
        if (b.is_from) return this.write('COPY FROM');
        if (b.filename !== undefined) return this.write('COPY TO a file');
        if (b.query) return this.check(b.query as Node, prepared);
        return;
      }
      case 'DeclareCursorStmt':
        return this.check(b.query as Node, prepared);
      case 'DropStmt':
        return this.write(`DROP ${String(b.removeType ?? 'OBJECT_TABLE').replace(/^OBJECT_/, '').replace(/_/g, ' ')}`);
      case 'PrepareStmt':
        return this.check(b.query as Node, prepared);
      case 'ExecuteStmt': {
        const p = prepared?.(b.name as string);
        if (p !== undefined) this.check(p, prepared);
        return;
      }
      default:
        return this.write(COMMAND[tag] ?? commandName(tag));
    }
  }

  /** ATTACH/DETACH (not PostgreSQL grammar, so not a parsed statement). */
  checkAttach(): void {
    if (!this.allowNetwork) throw new QuireError('42501', 'permission denied to attach a remote database', { hint: 'Sessions confined to allowed directories may not open network connections.' });
    this.write('ATTACH');
  }

  /** COPY … TO a file, at the moment it is written: the path actually used. */
  fileToWrite(file: string): string {
    this.write('COPY TO a file');
    return this.files === undefined ? file : this.files.resolveWrite(file);
  }

  /** COPY … FROM a file, at the moment it is read. */
  fileToRead(file: string): string {
    if (this.files === undefined) return file;
    return this.files.resolveRead(file, true)[0]!;
  }

  private write(command: string): void {
    if (!this.allowWrites) {
      throw new QuireError('25006', `cannot execute ${command} in a read-only transaction`, { hint: 'This session is read-only (quire serve --allow-writes grants writes).' });
    }
  }

  /** Data-modifying statements nested in a query (WITH x AS (INSERT …)) and row locks make it a write. */
  private checkNested(n: unknown): void {
    if (n === null || typeof n !== 'object') return;
    if (Array.isArray(n)) {
      for (const x of n) this.checkNested(x);
      return;
    }
    for (const [k, v] of Object.entries(n as Record<string, unknown>)) {
      if (DML.has(k)) this.write(COMMAND[k]!);
      if (k === 'intoClause' && v) this.write('SELECT INTO');
      // Row locks are a write in PostgreSQL too: refused in a read-only transaction.
      if (k === 'lockingClause' && Array.isArray(v) && v.length > 0) this.write(`SELECT ${lockingText(lockingItems({ lockingClause: v } as SelectStmt)[0]!.strength)}`);
      this.checkNested(v);
    }
  }
}

function commandName(tag: string): string {
  return tag
    .replace(/Stmt$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toUpperCase();
}

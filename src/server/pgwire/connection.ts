/**
 * One client connection: startup and authentication, then the simple and extended query protocols
 * over a connection-scoped view of the shared Database (its own session, cursors, prepared
 * statements, portals and transaction status).
 *
 * Messages are handled strictly in order, one at a time; a message that fails answers with an
 * ErrorResponse and, inside an extended-query sequence, everything up to the next Sync is skipped,
 * as PostgreSQL does. Only framing errors (impossible lengths, unknown message types) end the
 * connection, because after them the byte stream cannot be split into messages any more.
 */
import type { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Node, SelectStmt } from '@pgsql/types';
import { Database, type QueryResult, type ResultColumn } from '../../api/database.js';
import type { AccessPolicy } from '../../api/access-policy.js';
import { executeUtility } from '../../api/utility.js';
import { executeColumns } from '../../api/prepared.js';
import { modifyingCtes } from '../../api/modifying-ctes.js';
import { QuireError } from '../../common/errors.js';
import { T, type DataType } from '../../common/types.js';
import { maxParamRef, nodeBody, nodeTag, statementParamCount } from '../../sql/ast.js';
import { figureColname } from '../../sql/bind/query.js';
import { parseStatements, type ParsedStatement } from '../../sql/parse.js';
import { paramInsertOf } from '../../sql/param-insert.js';
import type { Catalog } from '../../storage/catalog.js';
import { backend, FrameReader, GSSENC_REQUEST, parseFrontend, parseStartup, ProtocolError, SSL_REQUEST, type BindMessage, type ErrorFields, type FrontendMessage } from './codec.js';
import { dropConnectionEnv, ENV_SETTING, registerConnectionEnv } from './catalog.js';
import { lookupOid, onlySystemRelations, qualifySystemNames, rewriteSystemTypes, rewritePsqlQuery, setViewColumnResolver, systemCatalogView, type OidRegistry } from './catalog.js';
import type { PgTraceEvent } from './index.js';
import { batchSource, Portal, rowsSource } from './portal.js';
import { ScramError, ScramExchange, type ScramSecret } from './scram.js';
import type { AuthThrottle } from './auth-throttle.js';
import { sqlForLog, type ServerLogger } from '../logger.js';
import { yieldTurn, type SliceTicker } from '../../index.js';
import { isInternal, toQuireError } from '../to-quire-error.js';
import { columnFormats, decodeParam, fieldDescription, oidOf, typeForOid } from './types.js';

export interface ConnectionHost {
  readonly db: Database;
  /** Privileges of every session on this listener (src/server/access.ts). */
  readonly access: AccessPolicy;
  readonly secret: ScramSecret | null;
  readonly user: string | undefined;
  readonly maxMessageBytes: number;
  readonly maxPreAuthBytes: number;
  readonly authTimeoutMs: number;
  readonly throttle: AuthThrottle;
  readonly logger: ServerLogger;
  /** Statements running at least this long are logged; 0 = none. */
  readonly logSlowMs: number;
  readonly oids: OidRegistry;
  register(c: Connection): { pid: number; key: number };
  unregister(c: Connection): void;
  cancel(pid: number, key: number): void;
  trace(event: PgTraceEvent): void;
}

export interface ConnectionOptions {
  /** Answer the startup packet with this FATAL error and close (the server is full). */
  refuse?: { code: string; message: string };
  /** Overrides the host's authentication timeout. */
  authTimeoutMs?: number;
}

interface Statement {
  name: string;
  sql: string;
  parsed: ParsedStatement | null;
  kind: 'select' | 'utility' | 'empty';
  /** Declared (Parse) or inferred parameter types. */
  paramTypes: DataType[];
  paramOids: number[];
  /** Result columns when known without running the statement. */
  columns: ResultColumn[] | null;
  /** A catalog query the engine cannot bind: it answers with no rows (see prepareSelect). */
  emptyFallback: boolean;
}

/** GUCs PostgreSQL reports to the client with ParameterStatus (and re-reports when SET). */
const REPORTED: [string, string][] = [
  ['application_name', 'application_name'],
  ['client_encoding', 'client_encoding'],
  ['DateStyle', 'datestyle'],
  ['default_transaction_read_only', 'default_transaction_read_only'],
  ['in_hot_standby', 'in_hot_standby'],
  ['integer_datetimes', 'integer_datetimes'],
  ['IntervalStyle', 'intervalstyle'],
  ['is_superuser', 'is_superuser'],
  ['server_encoding', 'server_encoding'],
  ['server_version', 'server_version'],
  ['session_authorization', 'session_authorization'],
  ['standard_conforming_strings', 'standard_conforming_strings'],
  ['TimeZone', 'timezone'],
];

/** Bind-time errors that mean "the engine cannot express this catalog query" rather than a user mistake. */
const CATALOG_FALLBACK_CODES = new Set(['0A000', '42883', '42704', '42P01', '42846', '42804', '42703', '42725']);


export class Connection {
  private readonly frames: FrameReader;
  private db: Database | null = null;
  private phase: 'startup' | 'auth' | 'ready' | 'closed' = 'startup';
  private queue: ({ msg: FrontendMessage } | { bad: ProtocolError; type: number } | { startup: Buffer })[] = [];
  private processing = false;
  private out: Buffer[] = [];
  private outBytes = 0;
  private statements = new Map<string, Statement>();
  private portals = new Map<string, Portal>();
  /**
   * The last unnamed statement that was a parameter INSERT, by its text and declared types: a client's
   * autocommit loop sends the same Parse before every Bind, and such a statement's preparation depends
   * on nothing but its text (no catalog lookups), so the next Parse of that text takes it as it is.
   */
  private lastParamInsert: { sql: string; paramOids: string; stmt: Statement } | null = null;
  /** Portals whose statement already ran and committed on its own at Bind (bindAutocommit). */
  private autocommitted = new WeakSet<Portal>();
  private skipTillSync = false;
  private scram: ScramExchange | null = null;
  private startupParams = new Map<string, string>();
  private reported = new Map<string, string>();
  /** session.changes when parameters were last reported. */
  private reportedChanges = -1;
  /** The running statement's share of the event loop, for the yields between batches it sends. */
  private ticker: SliceTicker = { last: 0, count: 0, used: 0 };
  private running: Portal | null = null;
  private busy = false;
  private copyIn: { file: string; dir: string; stream: ReturnType<typeof createWriteStream>; stmt: ParsedStatement; rest: ParsedStatement[]; error: Error | null } | null = null;
  pid = 0;
  key = 0;
  private authTimer: NodeJS.Timeout | null;
  /** Key of this connection's catalog environment for the catalog functions (catalog.ts). */
  private envId: string | null = null;
  /** Bytes received before authentication completed (bounded by maxPreAuthBytes). */
  private preAuthBytes = 0;
  /** SSLRequest / GSSENCRequest already answered: each may come once, before the startup packet. */
  private negotiated = new Set<'ssl' | 'gssenc'>();
  private readonly refuse: ConnectionOptions['refuse'];
  private readonly remoteAddress: string;

  constructor(
    private readonly socket: Socket,
    private readonly host: ConnectionHost,
    opts: ConnectionOptions = {},
  ) {
    this.frames = new FrameReader({ maxMessage: host.maxMessageBytes, maxPreAuth: host.maxPreAuthBytes });
    this.refuse = opts.refuse;
    this.remoteAddress = socket.remoteAddress ?? '';
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => this.teardown());
    socket.on('close', () => this.teardown());
    // PostgreSQL's authentication_timeout: a client that never finishes startup does not hold a slot.
    this.authTimer = setTimeout(() => {
      if (this.phase === 'startup' || this.phase === 'auth') this.fatal('08006', 'canceling authentication due to timeout');
    }, opts.authTimeoutMs ?? host.authTimeoutMs);
    this.authTimer.unref();
  }

  // ---- input ----

  private onData(chunk: Buffer): void {
    if (this.phase === 'closed') return;
    if (this.phase !== 'ready') {
      // Nothing a client sends before it is authenticated may cost more than a few KiB: a startup,
      // an SSL negotiation and a SASL exchange fit easily.
      this.preAuthBytes += chunk.length;
      if (this.preAuthBytes > this.host.maxPreAuthBytes) {
        this.frames.discard();
        this.queue = [];
        this.fatal('08P01', `more than ${this.host.maxPreAuthBytes} bytes received before authentication`);
        return;
      }
    }
    this.frames.push(chunk);
    try {
      for (;;) {
        const f = this.frames.next();
        if (f === null) break;
        if (this.frames.startup) {
          this.queue.push({ startup: f.body });
          // After an SSLRequest or GSSENCRequest the next packet is again a startup-phase one; it may
          // have arrived in the same read (clients pipeline them), so this is decided here, not after
          // the answer 'N' is sent.
          const code = f.body.length === 4 ? f.body.readInt32BE(0) : 0;
          this.frames.startup = code === SSL_REQUEST || code === GSSENC_REQUEST;
          continue;
        }
        try {
          this.queue.push({ msg: parseFrontend(f.type, f.body) });
        } catch (e) {
          if (e instanceof ProtocolError && !e.fatal) this.queue.push({ bad: e, type: f.type });
          else throw e;
        }
      }
    } catch (e) {
      // Framing is lost: answer what came before, then end the connection.
      const err = e instanceof ProtocolError ? e : new ProtocolError(String(e), true);
      this.queue.push({ bad: err, type: 0 });
    }
    if (this.queue.length > 256) this.socket.pause();
    if (!this.processing) void this.process();
  }

  private async process(): Promise<void> {
    this.processing = true;
    try {
      while (this.queue.length > 0 && this.phase !== 'closed') {
        const item = this.queue.shift()!;
        if ('startup' in item) await this.handleStartup(item.startup);
        else if ('bad' in item) await this.handleBad(item.bad, item.type);
        else await this.handle(item.msg);
        if (this.queue.length < 64 && this.socket.isPaused()) this.socket.resume();
      }
      await this.flush();
    } catch (e) {
      // A bug in the server must cost this connection only, never the process.
      this.host.logger.error({ port: 'pg', pid: this.pid, err: e }, 'internal error; connection closed');
      this.fatal('XX000', `internal error: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      this.processing = false;
    }
  }

  private async handleBad(e: ProtocolError, type: number): Promise<void> {
    if (e.fatal || this.phase !== 'ready') {
      this.fatal('08P01', e.message);
      return;
    }
    this.sendError({ severity: 'ERROR', code: '08P01', message: e.message });
    if ('PBEDCH'.includes(String.fromCharCode(type))) this.skipTillSync = true;
    else this.readyForQuery();
  }

  // ---- output ----

  private send(b: Buffer): void {
    this.out.push(b);
    this.outBytes += b.length;
  }

  private async flush(): Promise<void> {
    if (this.outBytes === 0 || this.socket.destroyed) {
      this.out = [];
      this.outBytes = 0;
      return;
    }
    // Replies may acknowledge commits (or show rows of them): they leave only once the log is on disk.
    try {
      const pending = this.db?.pendingDurable();
      if (pending) await pending;
    } catch (e) {
      // The log cannot be written: nothing buffered may be acknowledged.
      this.out = [];
      this.outBytes = 0;
      const q = toQuireError(e);
      this.fatal(q.code, q.message);
      return;
    }
    if (this.socket.destroyed) return;
    const data = this.out.length === 1 ? this.out[0]! : Buffer.concat(this.out, this.outBytes);
    this.out = [];
    this.outBytes = 0;
    if (!this.socket.write(data)) await this.drained();
  }

  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
  }

  /** Between batches: flush big outputs (with backpressure) and give the event loop a turn. */
  private async breathe(): Promise<void> {
    if (this.outBytes > 1 << 16) await this.flush();
    await yieldTurn(this.ticker);
  }

  private sendError(f: ErrorFields): void {
    this.send(backend.error(f));
  }

  private fatal(code: string, message: string): void {
    if (this.phase === 'closed') return;
    this.send(backend.error({ severity: 'FATAL', code, message }));
    const data = Buffer.concat(this.out);
    this.out = [];
    this.outBytes = 0;
    this.phase = 'closed';
    if (!this.socket.destroyed) this.socket.end(data);
    this.teardown();
  }

  private readyForQuery(): void {
    const s = this.db?.session;
    this.send(backend.readyForQuery(s?.inTransaction ? (s.transactionFailed ? 'E' : 'T') : 'I'));
  }

  private teardown(): void {
    if (this.authTimer) clearTimeout(this.authTimer);
    this.authTimer = null;
    if (this.phase !== 'closed') {
      this.phase = 'closed';
      if (!this.socket.destroyed) this.socket.destroy();
    }
    this.queue = [];
    if (this.pid !== 0) {
      this.host.unregister(this);
      this.pid = 0;
    }
    for (const p of this.portals.values()) void p.close();
    this.portals.clear();
    if (this.db) {
      void this.db.cursors.close(null).catch(() => undefined);
      // The session ends: an open transaction is discarded and TEMP tables are dropped.
      this.db.endSession();
    }
    if (this.envId !== null) dropConnectionEnv(this.envId);
    this.abortCopy();
  }

  // ---- startup ----

  private async handleStartup(body: Buffer): Promise<void> {
    let m;
    try {
      m = parseStartup(body);
    } catch (e) {
      this.fatal('08P01', e instanceof Error ? e.message : String(e));
      return;
    }
    if (m.kind === 'ssl' || m.kind === 'gssenc') {
      if (this.negotiated.has(m.kind)) {
        this.fatal('08P01', `duplicate ${m.kind === 'ssl' ? 'SSL' : 'GSSAPI encryption'} negotiation request`);
        return;
      }
      this.negotiated.add(m.kind);
      // No TLS or GSSAPI here: 'N' tells the client to continue in plain text (or give up, if it insists).
      this.send(Buffer.from('N'));
      await this.flush();
      return;
    }
    if (m.kind === 'cancel') {
      this.host.cancel(m.pid, m.key);
      this.phase = 'closed';
      this.socket.end();
      this.teardown();
      return;
    }
    if (this.refuse !== undefined) {
      this.fatal(this.refuse.code, this.refuse.message);
      return;
    }
    const user = m.params.get('user');
    if (user === undefined || user === '') {
      this.fatal('28000', 'no PostgreSQL user name specified in startup packet');
      return;
    }
    if (this.host.user !== undefined && user !== this.host.user) {
      // A wrong user name is a failed guess like a wrong password, and is answered as slowly.
      await this.authFailed('28000', `role "${user}" does not exist`, user);
      return;
    }
    this.startupParams = m.params;
    if (this.host.secret !== null) {
      this.phase = 'auth';
      this.scram = new ScramExchange(this.host.secret);
      this.send(backend.authSasl(['SCRAM-SHA-256']));
      await this.flush();
      return;
    }
    const addr = this.socket.remoteAddress ?? '';
    if (!isLoopback(addr)) {
      this.fatal('28000', `no password is configured: only loopback connections are trusted (connection from ${addr})`);
      return;
    }
    await this.finishStartup();
  }

  private async handleAuth(m: FrontendMessage): Promise<void> {
    const user = this.startupParams.get('user') ?? '';
    if (m.kind !== 'password' || this.scram === null) {
      this.fatal('08P01', `expected SASL response, got message type "${m.kind}"`);
      return;
    }
    try {
      if (this.scram.done) throw new ScramError('unexpected SASL message');
      if (!this.scramStarted) {
        // SASLInitialResponse: mechanism name, then the length-prefixed client-first-message.
        const nul = m.body.indexOf(0);
        if (nul < 0 || nul + 5 > m.body.length) throw new ScramError('malformed SASL message');
        const mech = m.body.toString('utf8', 0, nul);
        if (mech !== 'SCRAM-SHA-256') {
          this.fatal('28000', 'client selected an invalid SASL authentication mechanism');
          return;
        }
        const len = m.body.readInt32BE(nul + 1);
        const data = m.body.subarray(nul + 5);
        if (len !== data.length) throw new ScramError('malformed SASL message');
        this.scramStarted = true;
        const wait = this.host.throttle.reserve(this.remoteAddress);
        if (wait === null) {
          this.host.logger.info({ port: 'pg', remoteAddress: this.remoteAddress, user }, 'authentication refused: too many recent failures from this address');
          // Answered as slowly as a failure, so refused clients cannot spin on reconnects.
          this.socket.pause();
          await new Promise((r) => setTimeout(r, this.host.throttle.opts.failureDelayMs));
          this.fatal('28000', 'too many failed authentication attempts from this address; try again later');
          return;
        }
        if (wait > 0) {
          await new Promise((r) => setTimeout(r, wait));
          if (this.phase === 'closed') return;
        }
        this.send(backend.authSaslContinue(this.scram.start(data.toString('utf8'))));
        await this.flush();
        return;
      }
      const final = this.scram.finish(m.body.toString('utf8'));
      this.host.throttle.succeeded(this.remoteAddress);
      this.send(backend.authSaslFinal(final));
      await this.finishStartup();
    } catch (e) {
      if (e instanceof ScramError && /malformed|unexpected|channel/.test(e.message)) this.fatal('08P01', e.message);
      else await this.authFailed('28P01', `password authentication failed for user "${user}"`, user);
    }
  }

  /** Answers a failed authentication after the throttle's delay (auth-throttle.ts), then closes. */
  private async authFailed(code: string, message: string, user: string): Promise<void> {
    const delay = this.host.throttle.failed(this.remoteAddress);
    this.host.logger.info({ port: 'pg', remoteAddress: this.remoteAddress, user, code }, 'authentication failed');
    // Nothing more is read from this client; the auth timer still bounds the wait.
    this.socket.pause();
    await new Promise((r) => setTimeout(r, delay));
    this.fatal(code, message);
  }
  private scramStarted = false;

  private async finishStartup(): Promise<void> {
    if (this.authTimer) clearTimeout(this.authTimer);
    this.authTimer = null;
    this.frames.authenticated();
    const { pid, key } = this.host.register(this);
    this.pid = pid;
    this.key = key;
    const user = this.startupParams.get('user')!;
    const database = this.startupParams.get('database') ?? user;
    const base = this.host.db;
    let conn!: Database;
    const env = { session: () => conn.session, oids: this.host.oids, user, database };
    const catalog: Catalog = systemCatalogView(env, base.catalog);
    this.envId = randomUUID();
    registerConnectionEnv(this.envId, { ...env, catalog: base.catalog });
    conn = base.connect({ catalog, access: this.host.access });
    setViewColumnResolver(base.catalog, (name) => {
      const v = base.catalog.views.get(name);
      if (v === undefined) return [];
      return conn.prepareSelect(nodeBody<SelectStmt>(v.query), []).columns.map((c) => ({ name: c.name, type: c.type }));
    });
    this.db = conn;
    conn.session.set('quire.backend_pid', String(pid));
    conn.session.set(ENV_SETTING, this.envId);
    conn.session.set('quire.database', database);
    // Startup parameters are session settings (DateStyle, TimeZone, application_name,
    // extra_float_digits …); ones the engine rejects are ignored, as a server ignores unknown
    // options it cannot apply rather than refusing the connection.
    const settings: [string, string][] = [];
    for (const [k, v] of this.startupParams) {
      if (k === 'user' || k === 'database' || k === 'replication') continue;
      if (k === 'options') settings.push(...parseOptions(v));
      else settings.push([k, v]);
    }
    for (const [k, v] of settings) {
      if (k.toLowerCase() === 'client_encoding' || !/^[A-Za-z_][A-Za-z0-9_.]*$/.test(k)) continue;
      try {
        await conn.execute(`SET ${k} TO ${quoteLiteral(v)}`);
      } catch {
        // Ignored on purpose (see above).
      }
    }
    this.send(backend.authOk());
    this.reportParameters(true);
    this.send(backend.backendKeyData(pid, key));
    this.phase = 'ready';
    this.readyForQuery();
    await this.flush();
  }

  private reportParameters(all: boolean): void {
    const s = this.db!.session;
    // Nothing was SET (or RESET) since the last report: nothing can have changed.
    if (!all && s.changes === this.reportedChanges) return;
    this.reportedChanges = s.changes;
    for (const [wire, key] of REPORTED) {
      let v = s.get(key);
      if (key === 'in_hot_standby' || key === 'default_transaction_read_only') v ??= 'off';
      if (key === 'client_encoding') v = 'UTF8';
      if (key === 'session_authorization') v = this.startupParams.get('user');
      if (v === undefined) continue;
      if (all || this.reported.get(wire) !== v) {
        this.reported.set(wire, v);
        this.send(backend.parameterStatus(wire, v));
      }
    }
  }

  /** CancelRequest from another socket. */
  cancelRunning(): void {
    if (!this.busy) return;
    this.db?.cancel();
    this.running?.abort.abort();
  }

  // ---- dispatch ----

  private async handle(m: FrontendMessage): Promise<void> {
    if (this.phase === 'auth') return this.handleAuth(m);
    if (this.phase !== 'ready') return;
    if (m.kind === 'terminate') {
      await this.flush();
      this.phase = 'closed';
      this.socket.end();
      this.teardown();
      return;
    }
    if (this.copyIn !== null) return this.handleCopyIn(m);
    if (this.skipTillSync && m.kind !== 'sync') return;
    this.busy = true;
    // statement_timeout counts per message, as in PostgreSQL: each Execute of a portal starts afresh.
    if (m.kind === 'query' || m.kind === 'parse' || m.kind === 'bind' || m.kind === 'execute') this.db!.startStatement();
    try {
      switch (m.kind) {
        case 'query':
          await this.simpleQuery(m.sql);
          break;
        case 'parse':
          await this.extended(() => this.parse(m.name, m.sql, m.paramOids));
          break;
        case 'bind':
          if (this.bindAutocommit(m)) break;
          this.beginImplicit();
          await this.extended(() => this.bind(m));
          break;
        case 'describe':
          await this.extended(() => this.describe(m.target, m.name));
          break;
        case 'execute':
          if (!this.isAutocommitted(m.portal)) this.beginImplicit();
          await this.extended(() => this.execute(m.portal, m.maxRows));
          break;
        case 'close':
          await this.extended(async () => {
            if (m.target === 'S') this.statements.delete(m.name);
            else await this.closePortal(m.name);
            this.send(backend.closeComplete());
          });
          break;
        case 'sync':
          this.skipTillSync = false;
          this.endImplicit();
          // End of an implicit transaction: its portals go with it.
          if (!this.db!.session.inTransaction) await this.closeAllPortals();
          this.reportParameters(false);
          this.readyForQuery();
          await this.flush();
          break;
        case 'flush':
          await this.flush();
          break;
        case 'functionCall':
          this.sendError({ severity: 'ERROR', code: '0A000', message: 'the function call protocol message is not supported' });
          this.readyForQuery();
          break;
        case 'password':
          this.fatal('08P01', 'unexpected password message');
          break;
        case 'copyData':
        case 'copyDone':
        case 'copyFail':
          // PostgreSQL ignores these outside COPY: they are what a client still sends after a COPY failed.
          break;
      }
    } finally {
      this.busy = false;
    }
  }

  private async extended(f: () => Promise<void> | void): Promise<void> {
    try {
      await f();
    } catch (e) {
      this.reportFailure(e);
      this.skipTillSync = true;
      // An error undoes everything the implicit transaction did since the last Sync.
      if (this.inImplicit()) this.db!.rollbackTransaction();
    }
  }

  /** An implicit transaction of the extended protocol is open (no BEGIN made it a block). */
  private inImplicit(): boolean {
    return this.db!.inAnyTransaction && !this.db!.session.inTransaction;
  }

  /**
   * As in PostgreSQL, the statements of an extended-protocol pipeline outside a transaction block
   * run in one implicit transaction that ends at Sync (or at a simple Query).
   */
  private beginImplicit(): void {
    if (!this.db!.inAnyTransaction) this.db!.beginTransaction({ implicit: true });
  }

  /** Commits the implicit transaction, if one is open; a failed commit is reported before ReadyForQuery. */
  private endImplicit(): void {
    if (!this.inImplicit()) return;
    try {
      this.db!.commitTransaction();
    } catch (e) {
      this.reportFailure(e);
    }
  }

  /** One warn line per statement (or Execute) that ran at least logSlowMs. */
  private logIfSlow(sql: string, started: number): void {
    const ms = performance.now() - started;
    if (this.host.logSlowMs > 0 && ms >= this.host.logSlowMs) {
      this.host.logger.warn({ port: 'pg', pid: this.pid, durationMs: Math.round(ms), sql: sqlForLog(sql) }, 'slow query');
    }
  }

  private reportFailure(e: unknown, sql?: string): void {
    const q = toQuireError(e);
    if (isInternal(e)) this.host.logger.error({ port: 'pg', pid: this.pid, err: e, ...(sql !== undefined ? { sql: sqlForLog(sql) } : {}) }, 'internal error');
    // The failed-block state (25P02) lives in the session, which the library's own statements share.
    this.db?.failTransaction();
    this.sendError({ severity: 'ERROR', code: q.code, message: q.message, detail: q.detail, hint: q.hint, position: q.position || undefined });
  }

  // ---- simple query ----

  private async simpleQuery(sql: string): Promise<void> {
    // A pipeline that sent no Sync before this Query: what it did commits first.
    this.endImplicit();
    if (this.portals.has('')) await this.closePortal('');
    let stmts: ParsedStatement[];
    try {
      stmts = sql.trim() === '' ? [] : parseStatements(sql);
    } catch (e) {
      this.reportFailure(e);
      this.readyForQuery();
      return;
    }
    if (stmts.length === 0) {
      this.send(backend.emptyQuery());
      this.readyForQuery();
      return;
    }
    try {
      this.db!.checkStatements(stmts);
    } catch (e) {
      this.reportFailure(e);
      this.readyForQuery();
      return;
    }
    await this.runSimpleStatements(stmts);
  }

  private async runSimpleStatements(stmts: ParsedStatement[]): Promise<void> {
    const db = this.db!;
    // Several statements in one Query are one transaction, as in PostgreSQL, unless they control
    // transactions themselves (or feed COPY FROM STDIN, which finishes after this message).
    const implicit = stmts.length > 1 && !db.inAnyTransaction && !stmts.some((s) => nodeTag(s.stmt) === 'TransactionStmt' || this.isCopyFromStdin(s));
    if (implicit) db.beginTransaction({ implicit: true });
    let failed = false;
    for (let i = 0; i < stmts.length; i++) {
      const s = stmts[i]!;
      try {
        if (this.isCopyFromStdin(s)) {
          this.startCopyIn(s, stmts.slice(i + 1));
          return;
        }
        const started = performance.now();
        // A literal INSERT (a client's autocommit loop) runs without an await; flush() sends its
        // CommandComplete only once its commit is durable.
        const fast = db.literalInsertSync(s);
        if (fast !== null) this.send(backend.commandComplete(fast.commandTag));
        else await this.runOne(s);
        this.logIfSlow(s.text, started);
      } catch (e) {
        this.reportFailure(e, s.text);
        failed = true;
        break;
      }
      if (this.outBytes > 1 << 16) await this.flush();
    }
    if (implicit && db.inAnyTransaction && !db.session.inTransaction) {
      if (failed) db.rollbackTransaction();
      else {
        try {
          db.commitTransaction();
        } catch (e) {
          this.reportFailure(e);
        }
      }
    }
    this.reportParameters(false);
    this.readyForQuery();
  }

  /** One statement of a simple Query: RowDescription, DataRows and CommandComplete. */
  private async runOne(s: ParsedStatement): Promise<void> {
    // One-row INSERTs (a client's autocommit loop) skip planning and the portal, as query() does.
    const fast = await this.db!.runLiteralInsert(s);
    if (fast !== null) {
      this.send(backend.commandComplete(fast.commandTag));
      return;
    }
    await this.db!.prepareFiles(s.stmt);
    const stmt = this.prepareStatement('', s.text, s, []);
    if (stmt.kind === 'empty') {
      this.send(backend.emptyQuery());
      return;
    }
    const portal = await this.makePortal('', stmt, [], []);
    if (portal === null) return;
    this.portals.set('', portal);
    if (portal.columns.length > 0 || stmt.kind === 'select') this.send(backend.rowDescription(portal.columns.map((c, i) => fieldDescription(c.name, c.type, portal.formats[i] ?? 0))));
    await this.runPortal(portal, 0);
    await this.closePortal('');
  }

  // ---- extended query ----

  private async parse(name: string, sql: string, paramOids: number[]): Promise<void> {
    if (name !== '' && this.statements.has(name)) throw new QuireError('42P05', `prepared statement "${name}" already exists`);
    const last = this.lastParamInsert;
    if (name === '' && last !== null && last.sql === sql && last.paramOids === paramOids.join(',')) {
      this.host.trace({ kind: 'statement', pid: this.pid, sql: last.stmt.parsed!.text });
      this.checkAborted(last.stmt.parsed!.stmt);
      this.statements.set(name, last.stmt);
      this.send(backend.parseComplete());
      return;
    }
    const stmts = sql.trim() === '' ? [] : parseStatements(sql);
    if (stmts.length > 1) throw new QuireError('42601', 'cannot insert multiple commands into a prepared statement');
    if (stmts[0] !== undefined) await this.db!.prepareFiles(stmts[0].stmt);
    const stmt = this.prepareStatement(name, sql, stmts[0] ?? null, paramOids);
    this.statements.set(name, stmt);
    if (name === '') this.lastParamInsert = stmt.kind === 'utility' && stmt.parsed !== null && paramInsertOf(stmt.parsed.stmt) !== null ? { sql, paramOids: paramOids.join(','), stmt } : null;
    this.send(backend.parseComplete());
  }

  /**
   * Bind of `INSERT INTO t VALUES ($1, …)` outside a transaction block, when what the client sent up to
   * its Sync only describes and executes this portal: the implicit transaction would hold this one
   * statement, so the statement runs as its own transaction here (as a simple-protocol literal INSERT
   * does), with no transaction copy to make and merge. Its CommandComplete goes out with the Sync's
   * ReadyForQuery, once the commit is durable (flush). False when this path does not take the Bind
   * (nothing was done then): another message before the Sync, one not yet arrived, a binary or typed
   * parameter the general path converts, or a statement of another shape.
   */
  private bindAutocommit(m: BindMessage): boolean {
    const db = this.db!;
    if (db.inAnyTransaction || m.paramFormats.some((f) => f !== 0) || this.portals.has(m.portal)) return false;
    const stmt = this.statements.get(m.statement);
    if (stmt === undefined || stmt.kind !== 'utility' || stmt.parsed === null || m.params.length !== stmt.paramTypes.length) return false;
    const pi = paramInsertOf(stmt.parsed.stmt);
    if (pi === null || !this.onlyThisPortalUntilSync(m.portal)) return false;
    let r: QueryResult | null;
    try {
      const params = m.params.map((raw, i) => decodeParam(raw, 0, stmt.paramTypes[i]!));
      r = db.paramInsertSync(stmt.parsed, pi, params, stmt.paramTypes);
    } catch (e) {
      // Nothing was written: as the implicit transaction's rollback would leave it.
      this.reportFailure(e, stmt.sql);
      this.skipTillSync = true;
      return true;
    }
    if (r === null) return false;
    const tag = r.commandTag;
    const portal = new Portal(m.portal, [], [], rowsSource([], []), () => tag, this.formatContext(), () => this.breathe()).markCompleted();
    portal.sql = stmt.sql;
    this.portals.set(m.portal, portal);
    this.autocommitted.add(portal);
    this.send(backend.bindComplete());
    return true;
  }

  /** Whether the messages queued after this one, up to and including a Sync, only describe or execute `portal`. */
  private onlyThisPortalUntilSync(portal: string): boolean {
    for (const item of this.queue) {
      if (!('msg' in item)) return false;
      const m = item.msg;
      if (m.kind === 'sync') return true;
      if ((m.kind === 'describe' && m.target === 'P' && m.name === portal) || (m.kind === 'execute' && m.portal === portal)) continue;
      return false;
    }
    return false;
  }

  private isAutocommitted(name: string): boolean {
    const p = this.portals.get(name);
    return p !== undefined && this.autocommitted.has(p);
  }

  /** The session's text output settings, as portals format values. */
  private formatContext(): { timezone: string; extraFloatDigits: number; dateStyle: string | undefined; intervalStyle: string | undefined } {
    const db = this.db!;
    const efd = Number(db.session.get('extra_float_digits') ?? '1');
    return {
      timezone: db.timezone,
      extraFloatDigits: Number.isFinite(efd) ? efd : 1,
      dateStyle: db.session.get('datestyle'),
      intervalStyle: db.session.get('intervalstyle'),
    };
  }

  private prepareStatement(name: string, sql: string, s: ParsedStatement | null, paramOids: number[]): Statement {
    this.host.trace({ kind: 'statement', pid: this.pid, sql: s?.text ?? sql });
    const declared = paramOids.map(typeForOid);
    if (s === null) return { name, sql, parsed: null, kind: 'empty', paramTypes: [], paramOids: [], columns: [], emptyFallback: false };
    const rewritten = rewritePsqlQuery(s.text);
    if (rewritten !== null) s = { ...parseStatements(rewritten)[0]!, text: s.text };
    qualifySystemNames(s.stmt);
    rewriteSystemTypes(s.stmt, (kind, text) => lookupOid({ catalog: this.host.db.catalog, oids: this.host.oids }, kind, text));
    this.checkAborted(s.stmt);
    const tag = nodeTag(s.stmt);
    // A SELECT with data-modifying WITH queries runs as a statement: its columns are known once it ran.
    if (tag === 'SelectStmt' && !nodeBody<SelectStmt>(s.stmt).intoClause && modifyingCtes(nodeBody<SelectStmt>(s.stmt)) === null) {
      const sel = nodeBody<SelectStmt>(s.stmt);
      try {
        const p = this.db!.prepareSelect(sel, [], declared);
        const types = p.paramTypes.map((t, i) => (declared[i] && declared[i]!.name !== 'unknown' ? declared[i]! : t));
        while (types.length < declared.length) types.push(declared[types.length]!);
        return { name, sql, parsed: s, kind: 'select', paramTypes: types, paramOids: types.map((t, i) => paramOids[i] || oidOf(t)), columns: p.columns, emptyFallback: false };
      } catch (e) {
        // Catalog probes written for real PostgreSQL (arrays, regclass, …) that only touch system
        // tables answer "no rows" instead of failing the client's connect or describe step.
        const q = toQuireError(e);
        if (CATALOG_FALLBACK_CODES.has(q.code) && onlySystemRelations(s.stmt)) {
          this.host.trace({ kind: 'fallback', pid: this.pid, sql, code: q.code, message: q.message });
          const columns = (sel.targetList ?? []).map((t) => {
            const rt = nodeBody<{ name?: string; val: Node }>(t);
            return { name: rt.name ?? figureColname(rt.val), type: T.text };
          });
          const n = Math.max(declared.length, maxParamRef(s.stmt));
          const types = Array.from({ length: n }, (_, i) => declared[i] ?? T.text);
          return { name, sql, parsed: s, kind: 'select', paramTypes: types, paramOids: types.map((t, i) => paramOids[i] || oidOf(t)), columns, emptyFallback: true };
        }
        throw e;
      }
    }
    const n = Math.max(declared.length, statementParamCount(s.stmt));
    const types = Array.from({ length: n }, (_, i) => declared[i] ?? T.unknown);
    return { name, sql, parsed: s, kind: 'utility', paramTypes: types, paramOids: types.map((t, i) => paramOids[i] || oidOf(t)), columns: utilityColumns(this.db!, s.stmt), emptyFallback: false };
  }

  /** In a failed transaction block only ROLLBACK (or COMMIT, which rolls back) is accepted. */
  private checkAborted(stmt: Node): void {
    if (!this.db!.session.transactionFailed || !this.db!.session.inTransaction) return;
    if (nodeTag(stmt) === 'TransactionStmt') {
      const kind = nodeBody<{ kind: string }>(stmt).kind;
      if (kind === 'TRANS_STMT_ROLLBACK' || kind === 'TRANS_STMT_COMMIT' || kind === 'TRANS_STMT_ROLLBACK_TO' || kind === 'TRANS_STMT_ROLLBACK_PREPARED') return;
    }
    throw new QuireError('25P02', 'current transaction is aborted, commands ignored until end of transaction block');
  }

  private async bind(m: BindMessage): Promise<void> {
    const stmt = this.statements.get(m.statement);
    if (stmt === undefined) {
      throw new QuireError('26000', m.statement === '' ? 'unnamed prepared statement does not exist' : `prepared statement "${m.statement}" does not exist`);
    }
    if (m.portal !== '' && this.portals.has(m.portal)) throw new QuireError('42P03', `portal "${m.portal}" already exists`);
    if (stmt.parsed) this.checkAborted(stmt.parsed.stmt);
    const n = stmt.paramTypes.length;
    if (m.params.length !== n) {
      throw new QuireError('08P01', `bind message supplies ${m.params.length} parameters, but prepared statement "${stmt.name}" requires ${n}`);
    }
    if (m.paramFormats.length > 1 && m.paramFormats.length !== n) {
      throw new QuireError('08P01', `bind message has ${m.paramFormats.length} parameter formats but ${n} parameters`);
    }
    const params = m.params.map((raw, i) => decodeParam(raw, m.paramFormats.length === 0 ? 0 : m.paramFormats.length === 1 ? m.paramFormats[0]! : m.paramFormats[i]!, stmt.paramTypes[i]!));
    await this.closePortal(m.portal);
    const portal = await this.makePortal(m.portal, stmt, params, m.resultFormats);
    if (portal !== null) {
      portal.sql = stmt.sql;
      this.portals.set(m.portal, portal);
    }
    this.send(backend.bindComplete());
  }

  /** Builds the portal; utility statements run here (PostgreSQL runs them to completion at first Execute). */
  private async makePortal(name: string, stmt: Statement, params: unknown[], resultFormats: number[]): Promise<Portal | null> {
    const db = this.db!;
    const tz = this.formatContext();
    const breathe = (): Promise<void> => this.breathe();
    this.ticker = { last: performance.now(), count: 0, used: 0 };
    // READ COMMITTED: each statement sees what other sessions committed before it started.
    db.beginStatement();
    if (stmt.kind === 'empty' || stmt.parsed === null) {
      return new Portal(name, [], [], rowsSource([], []), () => '', tz, breathe).markEmpty();
    }
    if (stmt.kind === 'select') {
      if (stmt.emptyFallback) {
        const cols = stmt.columns ?? [];
        return new Portal(name, cols, columnFormats(resultFormats, cols.length), rowsSource(cols, []), () => 'SELECT 0', tz, breathe);
      }
      if ((nodeBody<SelectStmt>(stmt.parsed.stmt).lockingClause ?? []).length > 0) {
        // FOR UPDATE/SHARE: the rows are locked as the statement runs, so it runs to completion here.
        const result = await this.runUtility(stmt.parsed, params);
        return new Portal(name, result.columns, columnFormats(resultFormats, result.columns.length), rowsSource(result.columns, result.rows), () => result.commandTag, tz, breathe);
      }
      const prepared = db.prepareSelect(nodeBody<SelectStmt>(stmt.parsed.stmt), params, stmt.paramTypes);
      const formats = columnFormats(resultFormats, prepared.columns.length);
      // The portal's controller is the plan's signal: closing or cancelling the portal stops the plan.
      const abort = new AbortController();
      // Messages the plan raises (PL/pgSQL RAISE NOTICE) go out as they happen, between the rows.
      const ctx = { ...db.execContext(prepared.paramTypes, params, false), signal: abort.signal, notice: (m: string, level: string) => this.notice(m, level) };
      // One account per statement: the yields between the batches sent count with the plan's own.
      if (ctx.ticker !== undefined) this.ticker = ctx.ticker;
      const op = await db.physical(prepared.plan, ctx);
      return new Portal(name, prepared.columns, formats, batchSource(op.execute(ctx)), (n) => `SELECT ${n}`, tz, breathe, abort);
    }
    if (params.length === 0) {
      // A literal INSERT sent through Parse/Bind/Execute (JDBC sends every statement so).
      const fast = await db.runLiteralInsert(stmt.parsed);
      if (fast !== null) return new Portal(name, [], [], rowsSource([], []), () => fast.commandTag, tz, breathe);
    }
    const result = await this.runUtility(stmt.parsed, params);
    if (result.copyOut !== undefined) {
      // COPY … TO STDOUT through a portal: the data goes out as CopyData before CommandComplete.
      return new Portal(name, [], [], rowsSource([], []), () => result.commandTag, tz, breathe).withCopyOut(result.copyOut);
    }
    const formats = columnFormats(resultFormats, result.columns.length);
    return new Portal(name, result.columns, formats, rowsSource(result.columns, result.rows), () => result.commandTag, tz, breathe);
  }

  private async runUtility(s: ParsedStatement, params: unknown[]): Promise<QueryResult> {
    const db = this.db!;
    const tag = nodeTag(s.stmt);
    let stmt = s;
    let commitAsRollback = false;
    if (tag === 'TransactionStmt' && db.session.transactionFailed && nodeBody<{ kind: string }>(s.stmt).kind === 'TRANS_STMT_COMMIT') {
      // COMMIT of a failed transaction rolls it back (and says so in its tag).
      stmt = { ...s, stmt: { TransactionStmt: { kind: 'TRANS_STMT_ROLLBACK' } } as unknown as Node };
      commitAsRollback = true;
    }
    if (tag === 'TransactionStmt' && this.inImplicit()) {
      // COMMIT or ROLLBACK without BEGIN ends the pipeline's implicit transaction (with a warning), as in PostgreSQL.
      const kind = nodeBody<{ kind: string }>(stmt.stmt).kind;
      if (kind === 'TRANS_STMT_COMMIT') db.commitTransaction();
      else if (kind === 'TRANS_STMT_ROLLBACK') db.rollbackTransaction();
    }
    const before = db.session.inTransaction;
    db.takeRaised();
    const result = await executeUtility(db, stmt, params);
    for (const n of [...db.takeRaised(), ...result.notices]) this.notice(n);
    if (!db.session.inTransaction) db.session.transactionFailed = false;
    if (before && !db.session.inTransaction) await this.closeAllPortals();
    if (commitAsRollback) return { ...result, commandTag: 'ROLLBACK' };
    return result;
  }

  /** `level`: a PL/pgSQL RAISE's level (warning: SQLSTATE 01000, as PostgreSQL sends it). */
  private notice(message: string, level?: string): void {
    const warning = level === 'warning' || /transaction in progress/.test(message);
    const code = message === 'there is already a transaction in progress' ? '25001' : message === 'there is no transaction in progress' ? '25P01' : level === 'warning' ? '01000' : '00000';
    this.send(backend.notice({ severity: warning ? 'WARNING' : level === 'info' ? 'INFO' : 'NOTICE', code, message }));
  }

  private async describe(target: 'S' | 'P', name: string): Promise<void> {
    if (target === 'S') {
      const stmt = this.statements.get(name);
      if (stmt === undefined) throw new QuireError('26000', name === '' ? 'unnamed prepared statement does not exist' : `prepared statement "${name}" does not exist`);
      this.send(backend.parameterDescription(stmt.paramOids));
      if (stmt.columns !== null && stmt.columns.length > 0) this.send(backend.rowDescription(stmt.columns.map((c) => fieldDescription(c.name, c.type, 0))));
      else this.send(backend.noData());
      return;
    }
    const p = this.portals.get(name);
    if (p === undefined) throw new QuireError('34000', `portal "${name}" does not exist`);
    if (p.columns.length > 0) this.send(backend.rowDescription(p.columns.map((c, i) => fieldDescription(c.name, c.type, p.formats[i] ?? 0))));
    else this.send(backend.noData());
  }

  private async execute(name: string, maxRows: number): Promise<void> {
    const p = this.portals.get(name);
    if (p === undefined) throw new QuireError('34000', `portal "${name}" does not exist`);
    try {
      const started = performance.now();
      await this.runPortal(p, maxRows);
      this.logIfSlow(p.sql, started);
    } catch (e) {
      // A portal whose execution failed cannot continue (PostgreSQL marks it failed).
      await this.closePortal(name);
      throw e;
    }
  }

  private async runPortal(p: Portal, maxRows: number): Promise<void> {
    if (p.isEmpty) {
      this.send(backend.emptyQuery());
      return;
    }
    const copy = p.takeCopyOut();
    if (copy !== null) {
      this.send(backend.copyOutResponse(0));
      if (copy.length > 0) this.send(backend.copyData(Buffer.from(copy, 'utf8')));
      this.send(backend.copyDone());
      this.send(backend.commandComplete(p.completionTag()));
      return;
    }
    this.running = p;
    try {
      const r = await p.run(maxRows, (cells) => this.send(backend.dataRow(cells)));
      this.host.trace({ kind: 'execute', pid: this.pid, portal: p.name, maxRows, result: r.suspended ? 'suspended' : 'complete', binaryColumns: p.formats.filter((f) => f === 1).length });
      this.send(r.suspended ? backend.portalSuspended() : backend.commandComplete(r.tag));
    } finally {
      this.running = null;
    }
  }

  private async closePortal(name: string): Promise<void> {
    const p = this.portals.get(name);
    if (p === undefined) return;
    this.portals.delete(name);
    await p.close();
  }

  private async closeAllPortals(): Promise<void> {
    const all = [...this.portals.values()];
    this.portals.clear();
    for (const p of all) await p.close();
  }

  // ---- COPY FROM STDIN ----

  private isCopyFromStdin(s: ParsedStatement): boolean {
    if (nodeTag(s.stmt) !== 'CopyStmt') return false;
    const b = nodeBody<{ is_from?: boolean; filename?: string; is_program?: boolean }>(s.stmt);
    return b.is_from === true && b.filename === undefined && b.is_program !== true;
  }

  /** The client's data is spooled to a temporary file, then loaded by the engine's own COPY FROM. */
  private startCopyIn(s: ParsedStatement, rest: ParsedStatement[]): void {
    this.checkAborted(s.stmt);
    // Refused before the client sends any data.
    this.db!.checkStatements([s]);
    const dir = mkdtempSync(join(tmpdir(), 'quire-copy-'));
    const file = join(dir, 'stdin');
    const stream = createWriteStream(file);
    this.copyIn = { file, dir, stream, stmt: s, rest, error: null };
    stream.on('error', (e) => {
      if (this.copyIn) this.copyIn.error = e;
    });
    this.send(backend.copyInResponse());
  }

  private async handleCopyIn(m: FrontendMessage): Promise<void> {
    const c = this.copyIn!;
    if (m.kind === 'copyData') {
      if (!c.stream.write(m.data)) await new Promise<void>((r) => c.stream.once('drain', () => r()));
      return;
    }
    if (m.kind === 'flush' || m.kind === 'sync') return;
    this.copyIn = null;
    await new Promise<void>((r) => c.stream.end(() => r()));
    this.busy = true;
    try {
      if (m.kind === 'copyDone') {
        if (c.error) throw c.error;
        const body = nodeBody<Record<string, unknown>>(c.stmt.stmt);
        const stmt: ParsedStatement = { ...c.stmt, stmt: { CopyStmt: { ...body, filename: c.file, spooledStdin: true } } as unknown as Node };
        const r = await this.runUtility(stmt, []);
        this.send(backend.commandComplete(r.commandTag));
      } else if (m.kind === 'copyFail') {
        throw new QuireError('57014', `COPY from stdin failed: ${m.message}`);
      } else {
        throw new QuireError('08P01', `unexpected message type during COPY from stdin`);
      }
    } catch (e) {
      this.reportFailure(e);
      rmSync(c.dir, { recursive: true, force: true });
      this.readyForQuery();
      this.busy = false;
      return;
    }
    rmSync(c.dir, { recursive: true, force: true });
    try {
      await this.runSimpleStatements(c.rest);
    } finally {
      this.busy = false;
    }
  }

  private abortCopy(): void {
    const c = this.copyIn;
    if (c === null) return;
    this.copyIn = null;
    c.stream.destroy();
    rmSync(c.dir, { recursive: true, force: true });
  }
}

/** Columns of utility statements that return rows, known without running them (for Describe). */
function utilityColumns(db: Database, stmt: Node): ResultColumn[] | null {
  const tag = nodeTag(stmt);
  const b = nodeBody<Record<string, unknown>>(stmt);
  if (tag === 'VariableShowStmt') {
    const name = b.name as string;
    if (name === 'all') return [{ name: 'name', type: T.text }, { name: 'setting', type: T.text }];
    return [{ name: name === 'timezone' ? 'TimeZone' : name, type: T.text }];
  }
  if (tag === 'ExplainStmt') return [{ name: 'QUERY PLAN', type: T.text }];
  if (tag === 'ExecuteStmt') return executeColumns(db, b);
  if (tag === 'FetchStmt' && b.ismove !== true) {
    const name = b.portalname as string;
    return db.cursors.has(name) ? db.cursors.get(name).columns : null;
  }
  // DML with RETURNING: unknown until run; the portal Describe (after Bind) reports them.
  return null;
}

export function isLoopback(addr: string): boolean {
  return addr === '::1' || addr.startsWith('127.') || addr.startsWith('::ffff:127.');
}

function quoteLiteral(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** The startup "options" parameter: "-c name=value" pairs (also "--name=value"). */
function parseOptions(s: string): [string, string][] {
  const out: [string, string][] = [];
  const words = s.match(/(?:\\.|[^\s])+/g) ?? [];
  for (let i = 0; i < words.length; i++) {
    let w = words[i]!.replace(/\\(.)/g, '$1');
    if (w === '-c' && i + 1 < words.length) w = words[++i]!.replace(/\\(.)/g, '$1');
    else if (w.startsWith('-c')) w = w.slice(2);
    else if (w.startsWith('--')) w = w.slice(2);
    else continue;
    const eq = w.indexOf('=');
    if (eq > 0) out.push([w.slice(0, eq).replace(/-/g, '_'), w.slice(eq + 1)]);
  }
  return out;
}

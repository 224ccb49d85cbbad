/**
 * Test support: a Quire server with a small fixture on 127.0.0.1 (port 0), and a raw protocol
 * client built on pg-protocol (node-postgres' codec: it serialises frontend messages and parses
 * backend ones), so protocol tests speak exactly the bytes a real driver would.
 */
import { connect, type Socket } from 'node:net';
import { parse, serialize } from 'pg-protocol';
import type { BackendMessage } from 'pg-protocol/dist/messages.js';
import { Database } from '../../src/index.js';
import { startPgServer, type PgServer, type PgServerOptions } from '../../src/server/pgwire/index.js';

export interface Fixture {
  db: Database;
  server: PgServer;
  statements: string[];
  executes: { portal: string; maxRows: number; result: string; binaryColumns: number }[];
  /** Catalog queries answered with no rows because the engine could not bind them. */
  fallbacks: { sql: string; code: string; message: string }[];
}

export async function startFixture(opts: PgServerOptions = {}): Promise<Fixture> {
  const db = await Database.create();
  await db.query('create table t (a int, b text, c float8, d numeric(10,2), e date, f timestamptz, g bool)');
  await db.query(
    "insert into t select i, 'row ' || i, i * 1.5, i * 0.25, date '2024-01-01' + i, timestamptz '2024-01-01 00:00:00+00' + i * interval '1 hour', i % 2 = 0 from generate_series(1, 10) i",
  );
  const statements: string[] = [];
  const executes: Fixture['executes'] = [];
  const fallbacks: Fixture['fallbacks'] = [];
  const server = await startPgServer(db, {
    port: 0,
    // Protocol tests run DDL/DML; the read-only default has its own tests (test/server/access.test.ts).
    allowWrites: true,
    trace: (e) => {
      if (e.kind === 'statement') statements.push(e.sql);
      else if (e.kind === 'fallback') fallbacks.push({ sql: e.sql, code: e.code, message: e.message });
      else executes.push({ portal: e.portal, maxRows: e.maxRows, result: e.result, binaryColumns: e.binaryColumns });
    },
    log: () => undefined,
    ...opts,
  });
  return { db, server, statements, executes, fallbacks };
}

export type Msg = BackendMessage & Record<string, unknown>;

/** A raw protocol connection; `next(name)` waits for the next message of that name. */
export class RawClient {
  readonly messages: Msg[] = [];
  /** Bodies of every DataRow received, undecoded. */
  readonly rawRows: Buffer[] = [];
  private waiters: (() => void)[] = [];
  closed = false;

  private constructor(readonly socket: Socket) {
    void parse(socket, (m) => {
      this.messages.push(m as Msg);
      this.wake();
    }).catch(() => undefined);
    // pg-protocol decodes DataRow fields as text only; binary-format results are checked on the raw
    // DataRow bodies kept here.
    let pending = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => {
      pending = Buffer.concat([pending, d]);
      while (pending.length >= 5) {
        const len = pending.readInt32BE(1);
        if (pending.length < len + 1) break;
        if (pending[0] === 0x44) this.rawRows.push(Buffer.from(pending.subarray(5, len + 1)));
        pending = pending.subarray(len + 1);
      }
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  static async open(port: number): Promise<RawClient> {
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return new RawClient(socket);
  }

  /** Opens and completes a trust startup; resolves at the first ReadyForQuery. */
  static async ready(port: number, params: Record<string, string> = {}): Promise<RawClient> {
    const c = await RawClient.open(port);
    c.send(serialize.startup({ user: 'tester', database: 'quire', ...params }));
    await c.next('readyForQuery');
    c.take();
    return c;
  }

  send(b: Buffer | Buffer[]): void {
    this.socket.write(Array.isArray(b) ? Buffer.concat(b) : b);
  }

  /** Waits until a message with this name has arrived (after those already consumed). */
  async next(name: string, timeoutMs = 10_000): Promise<Msg> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const m = this.messages.find((x) => x.name === name && !this.consumed.has(x));
      if (m) {
        this.consumed.add(m);
        return m;
      }
      if (this.closed) throw new Error(`connection closed while waiting for ${name}; got ${this.messages.map((x) => x.name).join(',')}`);
      if (Date.now() > deadline) throw new Error(`timeout waiting for ${name}; got ${this.messages.map((x) => x.name).join(',')}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, 50);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }
  private consumed = new Set<Msg>();

  /** Everything received so far (and not yet taken), then forgets it. */
  take(): Msg[] {
    const out = this.messages.splice(0);
    this.consumed.clear();
    return out;
  }

  /** Sends and collects every message up to and including the next ReadyForQuery. */
  async roundTrip(b: Buffer | Buffer[]): Promise<Msg[]> {
    this.take();
    this.send(b);
    await this.next('readyForQuery');
    return this.take();
  }

  async waitClosed(timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed) {
      if (Date.now() > deadline) throw new Error('connection still open');
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  end(): void {
    if (!this.closed) this.socket.end(serialize.end());
  }
}

export const names = (ms: Msg[]): string[] => ms.map((m) => m.name);
export const rowsOf = (ms: Msg[]): (string | null)[][] => ms.filter((m) => m.name === 'dataRow').map((m) => m.fields as (string | null)[]);

/** Splits a raw DataRow body into its field values (null = SQL NULL). */
export function rawFields(body: Buffer): (Buffer | null)[] {
  const n = body.readInt16BE(0);
  const out: (Buffer | null)[] = [];
  let off = 2;
  for (let i = 0; i < n; i++) {
    const len = body.readInt32BE(off);
    off += 4;
    if (len < 0) out.push(null);
    else {
      out.push(body.subarray(off, off + len));
      off += len;
    }
  }
  return out;
}
export { serialize };

/**
 * Durable writes into a database on disk: single-row autocommit INSERTs per second (each acknowledged
 * only once durable) into a table that already holds `--existing` rows, and a bulk load (one INSERT …
 * SELECT of `--bulk` rows) in MB/s of table data. Quire writes a database directory, called as a library
 * (quire) and through its PostgreSQL port with node-postgres as the client (quire-pgwire, what a server's
 * users run; the server in this process, or in a child process of its own with quire-pgwire-proc, as a
 * deployed server runs, client and server then working on both cores at once); better-sqlite3 runs in WAL mode with synchronous=FULL; PGlite keeps its data directory on disk.
 *
 * Each engine first runs `--warmup` commits into a scratch table (JIT and caches warm, as in a running
 * server); with `--runs N` every figure is the median of N runs, the engines taking turns per run so a
 * busy disk weighs on all of them alike, each run starting with the next engine.
 *
 *   npx tsx bench/commits.ts [--commits 200] [--existing 0,100000] [--bulk 1000000] [--warmup 200] [--runs 1]
 *                            [--engines quire,quire-pgwire,quire-pgwire-proc,sqlite,pglite] [--primary-key] [--text-key] [--key int-text] [--foreign-key] [--params]
 *                            [--each] (every run's figures too, one JSON line each)
 *                            [--clients 8] (engines quire-sessions, quire-pgwire-clients, quire-pgwire-proc-clients, sqlite-connections)
 *
 * quire-pgwire-proc-raw is quire-pgwire-proc with node-postgres replaced by the least client the
 * protocol allows (rawPgClient): the difference between the two is node-postgres's share.
 *
 * `--dir DIR` puts the scratch directories in DIR instead of the system's temporary directory: on a
 * RAM file system (/dev/shm) the disk is taken out and what remains is each engine's CPU per commit,
 * which `CPU µs/commit` reports (user and system time of this process over each series, so
 * quire-pgwire's includes node-postgres, the client; quire-pgwire-proc's adds the server process's,
 * which `server CPU µs/commit` shows alone; `main thread µs/commit` is this process's event-loop
 * thread alone, where Linux tells it; `main thread queued µs/commit` the time it was ready to run but
 * waited for a core, so that wall time minus both is the wait on the disk; `GC ms` the garbage
 * collector's pauses of this process that began within the series, `GCs` how many).
 *
 * `--params` sends each commit's INSERT as `INSERT INTO t VALUES ($1, $2, $3)` with its values, as
 * drivers send queries with values (node-postgres: Parse, Bind, Execute, Sync; better-sqlite3: one
 * prepared statement run with each row's values; the library: query(sql, params)).
 *
 * Several clients at once (`--clients N`, default 8): quire-sessions commits from N sessions of one
 * library Database (db.connect()), quire-pgwire-clients and quire-pgwire-proc-clients from N
 * node-postgres connections (the server in this process, or in its own), sqlite-connections from N
 * better-sqlite3 connections to one file. Each client runs its own loop of autocommit INSERTs, all at
 * once, `--commits` in all; a commit is acknowledged to its client only once durable, so concurrent
 * commits are group committed (one fdatasync for all those written while the last one ran), which
 * `fsyncs/commit` shows for Quire (`inline/commit`: the share of commits synced on the committing
 * thread, not through the thread pool). SQLite serializes its writers (one lock on the WAL; better-sqlite3
 * calls are synchronous, so its connections take turns), each commit with its own fdatasync.
 *
 * `--primary-key` declares id the table's PRIMARY KEY (each engine then checks every commit's key).
 * `--text-key` declares the text column s the PRIMARY KEY instead (each commit's s is then unique: a
 * text key, which the one-int-key fast paths do not serve).
 * `--key none|int4|int8|text|int-text` names the table's key instead: none, id as int4 or as bigint, s,
 * or (id, s) (int-text; each commit's s unique, as under a text key).
 * `--foreign-key` makes id reference the PRIMARY KEY of a table tp holding every id inserted (each
 * engine then looks every commit's key up there; SQLite only with PRAGMA foreign_keys, not set here).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { connect as netConnect } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { Database } from '../src/index.js';
import { storeFor } from '../src/storage/persist/index.js';
import { startPgServer } from '../src/server/pgwire/index.js';

interface Client {
  exec(sql: string): Promise<void>;
  /** One INSERT of a row into `table` as a statement with parameters. */
  insert(table: string, values: [number, number, string]): Promise<void>;
}

interface Engine extends Client {
  name: string;
  /** The clients committing at once in the measured series: the engine alone when there is one. */
  clients?: Client[];
  close(): Promise<void>;
  /** fdatasync calls of the engine's log so far, where it tells them. */
  syncs?(): Promise<number>;
  /** Of those, the ones made on the committing thread (a lone writer's), where it tells them. */
  inlineSyncs?(): Promise<number>;
  /** CPU time (µs) of a server process of the engine's own, when it has one: counted beside this one's. */
  serverCpu?(): Promise<number>;
}

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : dflt;
}

const COMMITS = Number(arg('commits', '200'));
const EXISTING = arg('existing', '0,100000').split(',').map(Number);
const BULK = Number(arg('bulk', '1000000'));
const WARMUP = Number(arg('warmup', '200'));
const RUNS = Number(arg('runs', '1'));
const FOREIGN_KEY = process.argv.includes('--foreign-key');
const PARAMS = process.argv.includes('--params');
const insertParams = (table: string): string => `INSERT INTO ${table} VALUES ($1, $2, $3)`;
const DIR = arg('dir', tmpdir());
const CLIENTS = Number(arg('clients', '8'));
const EACH = process.argv.includes('--each');
const KEYS = ['none', 'int4', 'int8', 'text', 'int-text'];
/** The table's key (--key); --primary-key is --key int4, --text-key is --key text. */
const KEY = arg('key', process.argv.includes('--text-key') ? 'text' : process.argv.includes('--primary-key') ? 'int4' : 'none');
if (!KEYS.includes(KEY)) throw new Error(`--key: one of ${KEYS.join(', ')}`);
/** Whether s is (part of) the key: each commit's s is then unique too, past the loaded rows'. */
const TEXT_KEY = KEY === 'text' || KEY === 'int-text';
const idKey = KEY === 'int4' || KEY === 'int8' ? ' PRIMARY KEY' : '';
const TABLE = `t (id ${KEY === 'int8' ? 'bigint' : 'int'}${idKey}${FOREIGN_KEY ? ' REFERENCES tp' : ''}, v float8, s text${KEY === 'text' ? ' PRIMARY KEY' : ''}${KEY === 'int-text' ? ', PRIMARY KEY (id, s)' : ''})`;

/** With --foreign-key: the referenced table tp, holding ids 1..n, made before t. */
async function parentTable(e: Engine, n: number): Promise<void> {
  if (!FOREIGN_KEY) return;
  await e.exec('CREATE TABLE tp (id int PRIMARY KEY)');
  await e.exec(`INSERT INTO tp SELECT i FROM generate_series(1, ${n}) i`);
}
// id int, v float8, s text of ~12 characters: about 24 bytes of data per row.
const ROW_BYTES = 4 + 8 + 12;

function libraryClient(db: Database): Client {
  return { exec: async (sql) => void (await db.query(sql)), insert: async (table, v) => void (await db.query(insertParams(table), v)) };
}

/** fdatasync calls of an in-process database directory's log. */
const walSyncs = (db: Database) => async (): Promise<number> => storeFor(db.catalog)?.walStats()?.syncs ?? 0;
const walInline = (db: Database) => async (): Promise<number> => storeFor(db.catalog)?.walStats()?.inlineSyncs ?? 0;

async function quire(dir: string): Promise<Engine> {
  const db = await Database.create({ path: dir });
  return { name: 'quire', ...libraryClient(db), syncs: walSyncs(db), inlineSyncs: walInline(db), close: () => db.close() };
}

/** CLIENTS sessions of one library Database committing at once. */
async function quireSessions(dir: string): Promise<Engine> {
  const db = await Database.create({ path: dir });
  return { name: `quire-sessions (${CLIENTS})`, ...libraryClient(db), clients: Array.from({ length: CLIENTS }, () => libraryClient(db.connect())), syncs: walSyncs(db), inlineSyncs: walInline(db), close: () => db.close() };
}

function pgClient(client: pg.Client): Client {
  return { exec: async (sql) => void (await client.query(sql)), insert: async (table, v) => void (await client.query(insertParams(table), v)) };
}

async function pgClients(port: number, n: number): Promise<pg.Client[]> {
  const clients = Array.from({ length: n }, () => new pg.Client({ host: '127.0.0.1', port, user: 'quire', database: 'quire' }));
  await Promise.all(clients.map((c) => c.connect()));
  return clients;
}

/** CLIENTS node-postgres connections to the PostgreSQL port of a server in this process. */
async function quirePgwireClients(dir: string): Promise<Engine> {
  const db = await Database.create({ path: dir });
  const server = await startPgServer(db, { port: 0, allowWrites: true });
  const clients = await pgClients(server.port, CLIENTS);
  return {
    name: `quire-pgwire-clients (${CLIENTS})`,
    ...pgClient(clients[0]!),
    clients: clients.map(pgClient),
    syncs: walSyncs(db),
    inlineSyncs: walInline(db),
    close: async () => {
      await Promise.all(clients.map((c) => c.end()));
      await server.close();
      await db.close();
    },
  };
}

async function quirePgwire(dir: string): Promise<Engine> {
  const db = await Database.create({ path: dir });
  const server = await startPgServer(db, { port: 0, allowWrites: true });
  const client = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'quire', database: 'quire' });
  await client.connect();
  return {
    name: 'quire-pgwire',
    ...pgClient(client),
    syncs: walSyncs(db),
    inlineSyncs: walInline(db),
    close: async () => {
      await client.end();
      await server.close();
      await db.close();
    },
  };
}

/** The child process serving quire-pgwire-proc's directories (bench/pgwire-server.ts), started on first use. */
let serverProcess: { ask(command: string): Promise<string>; end(): Promise<void> } | null = null;

function pgwireServerProcess(): NonNullable<typeof serverProcess> {
  if (serverProcess !== null) return serverProcess;
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./pgwire-server.ts', import.meta.url))], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const waiting: ((line: string) => void)[] = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`pgwire server exited (${code})`))));
  exited.catch(() => undefined);
  serverProcess = {
    ask: async (command) => {
      const answer = Promise.race([new Promise<string>((resolve) => waiting.push(resolve)), exited]);
      child.stdin.write(`${command}\n`);
      const line = await answer;
      if (line.startsWith('error ')) throw new Error(`pgwire server: ${line.slice(6)}`);
      return line;
    },
    end: async () => {
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdin.end();
      await gone;
    },
  };
  return serverProcess;
}

async function endPgwireServerProcess(): Promise<void> {
  await serverProcess?.end();
  serverProcess = null;
}

/**
 * The PostgreSQL port in a process of its own (bench/pgwire-server.ts), node-postgres in this one, as
 * a deployed server runs: client and server each have an event loop (and a core) of their own. One
 * server process serves every run's directory, so it is warm after the first like the other engines.
 */
/**
 * The least a client can do over the PostgreSQL protocol, for quire-pgwire-proc-raw: each statement one
 * socket write (a Query, or Parse, Bind, Execute and Sync with text parameters) and one wait for the
 * ReadyForQuery that ends its reply, nothing decoded but message types and errors. Beside
 * node-postgres, it tells the client's share of a round trip from the server's.
 */
async function rawPgClient(port: number): Promise<Client & { end(): void }> {
  const socket = netConnect(port, '127.0.0.1');
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const waiting: { resolve(): void; reject(e: Error): void }[] = [];
  let error: string | null = null;
  let pending: Buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    let at = 0;
    while (pending.length - at >= 5) {
      const end = at + 1 + pending.readInt32BE(at + 1);
      if (end > pending.length) break;
      const type = pending[at];
      // ErrorResponse: its message field (M) is what the bench reports.
      if (type === 0x45) error ??= /M([^\0]*)/.exec(pending.toString('utf8', at + 5, end))?.[1] ?? 'error';
      if (type === 0x5a) {
        const w = waiting.shift();
        if (error !== null) w?.reject(new Error(error));
        else w?.resolve();
        error = null;
      }
      at = end;
    }
    pending = pending.subarray(at);
  });
  const reply = (): Promise<void> => new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  const message = (type: string, body: Buffer): Buffer => {
    const head = Buffer.allocUnsafe(5);
    head.write(type, 0, 'latin1');
    head.writeInt32BE(body.length + 4, 1);
    return Buffer.concat([head, body]);
  };
  const cstring = (text: string): Buffer => Buffer.from(`${text}\0`);
  const int16 = (v: number): Buffer => Buffer.from([(v >> 8) & 0xff, v & 0xff]);
  const int32 = (v: number): Buffer => {
    const b = Buffer.allocUnsafe(4);
    b.writeInt32BE(v);
    return b;
  };
  const startup = Buffer.concat([int32(196608), cstring('user'), cstring('quire'), cstring('database'), cstring('quire'), Buffer.from([0])]);
  const started = reply();
  socket.write(Buffer.concat([int32(startup.length + 4), startup]));
  await started;
  const EXECUTE_SYNC = Buffer.concat([message('E', Buffer.concat([cstring(''), int32(0)])), message('S', Buffer.alloc(0))]);
  return {
    exec: (sql) => {
      const r = reply();
      socket.write(message('Q', cstring(sql)));
      return r;
    },
    insert: (table, values) => {
      const params = values.map((v) => Buffer.from(String(v)));
      const bind = message('B', Buffer.concat([cstring(''), cstring(''), int16(0), int16(params.length), ...params.flatMap((p) => [int32(p.length), p]), int16(0)]));
      const r = reply();
      const parse = message('P', Buffer.concat([cstring(''), cstring(insertParams(table)), int16(0)]));
      socket.write(Buffer.concat([parse, bind, EXECUTE_SYNC]));
      return r;
    },
    end: () => socket.end(message('X', Buffer.alloc(0))),
  };
}

async function quirePgwireProc(dir: string, n = 1, raw = false): Promise<Engine> {
  const server = pgwireServerProcess();
  const port = Number(/^port (\d+)$/.exec(await server.ask(`open ${dir}`))?.[1]);
  const figures = {
    serverCpu: async (): Promise<number> => {
      const m = /^cpu (\d+) (\d+)$/.exec(await server.ask('cpu'));
      if (m === null) throw new Error('pgwire server: no CPU figures');
      return Number(m[1]) + Number(m[2]);
    },
    syncs: async (): Promise<number> => {
      const m = /^syncs (\d+)$/.exec(await server.ask('syncs'));
      if (m === null) throw new Error('pgwire server: no fdatasync count');
      return Number(m[1]);
    },
  };
  if (raw) {
    const client = await rawPgClient(port);
    return {
      name: 'quire-pgwire-proc-raw',
      ...client,
      ...figures,
      close: async () => {
        client.end();
        await server.ask('close');
      },
    };
  }
  const clients = await pgClients(port, n);
  return {
    name: n === 1 ? 'quire-pgwire-proc' : `quire-pgwire-proc-clients (${n})`,
    ...pgClient(clients[0]!),
    ...(n > 1 ? { clients: clients.map(pgClient) } : {}),
    ...figures,
    close: async () => {
      await Promise.all(clients.map((c) => c.end()));
      await server.ask('close');
    },
  };
}

function sqliteClient(file: string): Client & { db: BetterSqlite3 } {
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  // Writers wait for one another's lock instead of failing with SQLITE_BUSY.
  db.pragma('busy_timeout = 10000');
  const inserts = new Map<string, ReturnType<BetterSqlite3["prepare"]>>();
  return {
    db,
    insert: async (table, v) => {
      let st = inserts.get(table);
      if (st === undefined) inserts.set(table, (st = db.prepare(`INSERT INTO ${table} VALUES (?, ?, ?)`)));
      st.run(...v);
    },
    exec: async (sql) => {
      db.exec(sql.replace(/generate_series\((\d+), (\d+)\) i/, (_m, a: string, b: string) => `(WITH RECURSIVE s(i) AS (SELECT ${a} UNION ALL SELECT i + 1 FROM s WHERE i < ${b}) SELECT i FROM s) g`).replace(/ ::text/g, ''));
    },
  };
}

async function sqlite(dir: string): Promise<Engine> {
  const c = sqliteClient(join(dir, 'db.sqlite'));
  return { name: 'sqlite', ...c, close: async () => void c.db.close() };
}

/** CLIENTS connections to one SQLite file, each with its own loop of INSERTs (they take turns: calls are synchronous). */
async function sqliteConnections(dir: string): Promise<Engine> {
  const clients = Array.from({ length: CLIENTS }, () => sqliteClient(join(dir, 'db.sqlite')));
  return { name: `sqlite-connections (${CLIENTS})`, ...clients[0]!, clients, close: async () => clients.forEach((c) => c.db.close()) };
}

async function pglite(dir: string): Promise<Engine> {
  const db = await PGlite.create(join(dir, 'pgdata'));
  return { name: 'pglite', exec: async (sql) => void (await db.exec(sql)), insert: async (table, v) => void (await db.query(insertParams(table), v)), close: () => db.close() };
}

/**
 * CPU time (µs) of this process's main thread so far, where the system tells it (Linux); null elsewhere.
 * The rest of `CPU µs/commit` is V8's helper threads (optimizing compiler, concurrent GC) and libuv's
 * thread pool: over a series of a few thousand commits the compiler's share is still large.
 */
function mainThreadCpu(): number | null {
  return schedstat(0);
}

/**
 * Time (µs) this process's main thread has spent runnable but not running (waiting for a core) so far,
 * where the system tells it; null elsewhere. Wall time minus main-thread CPU is not all disk: on two
 * cores the engine's own helper threads (V8's garbage collector and optimizing compiler) and other
 * processes take the core the main thread would run on the moment its write returns.
 */
function mainThreadQueued(): number | null {
  return schedstat(1);
}

function schedstat(field: number): number | null {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[field]) / 1000;
  } catch {
    return null;
  }
}

/**
 * The garbage collector's pauses of this process (start, duration in ms), as V8 reports them: a
 * series' column `GC ms` sums those that began within it. A bulk load leaves its rows' values young,
 * and the scavenge that first moves them to the old generation falls in whatever runs next.
 */
const gcPauses: { start: number; ms: number }[] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcPauses.push({ start: e.startTime, ms: e.duration });
}).observe({ entryTypes: ['gc'] });

/** GC pause (ms) and collections that began in [from, to); entries arrive after the fact, so call it after a turn of the event loop. */
function gcWithin(from: number, to: number): { ms: number; count: number } {
  let ms = 0;
  let count = 0;
  for (const g of gcPauses) {
    if (g.start >= from && g.start < to) {
      ms += g.ms;
      count++;
    }
  }
  return { ms, count };
}

async function measure(make: (dir: string) => Promise<Engine>): Promise<Record<string, number | string>> {
  const out: Record<string, number | string> = {};
  for (const existing of EXISTING) {
    const dir = mkdtempSync(join(DIR, 'quire-commits-'));
    try {
      const e = await make(dir);
      out.engine = e.name;
      await e.exec('CREATE TABLE warm (id int, v float8, s text)');
      for (let i = 0; i < WARMUP; i++) {
        if (PARAMS) await e.insert('warm', [i, i * 0.5, `row-${i}`]);
        else await e.exec(`INSERT INTO warm VALUES (${i}, ${i * 0.5}, 'row-${i}')`);
      }
      await parentTable(e, existing + COMMITS);
      await e.exec(`CREATE TABLE ${TABLE}`);
      if (existing > 0) await e.exec(`INSERT INTO t SELECT i, i * 0.5, 'row-' || i FROM generate_series(1, ${existing}) i`);
      const server0 = (await e.serverCpu?.()) ?? 0;
      const syncs0 = await e.syncs?.();
      const inline0 = await e.inlineSyncs?.();
      const clients = e.clients ?? [e];
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const main0 = mainThreadCpu();
      const queued0 = mainThreadQueued();
      // Client c commits rows c, c + n, c + 2n, …: every id once, the clients all at once.
      await Promise.all(
        clients.map(async (c, k) => {
          for (let i = k; i < COMMITS; i += clients.length) {
            // Under a text key, s is unique too: past the loaded rows' 'row-1' … 'row-<existing>'.
            const s = `row-${TEXT_KEY ? existing + i + 1 : i}`;
            if (PARAMS) await c.insert('t', [existing + i + 1, i * 0.5, s]);
            else await c.exec(`INSERT INTO t VALUES (${existing + i + 1}, ${i * 0.5}, '${s}')`);
          }
        }),
      );
      const cpu = process.cpuUsage(cpu0);
      const main = mainThreadCpu();
      const queued = mainThreadQueued();
      const t1 = performance.now();
      const ms = t1 - t0;
      const server = ((await e.serverCpu?.()) ?? 0) - server0;
      const syncs = await e.syncs?.();
      const inline = await e.inlineSyncs?.();
      out[`inserts/s into ${existing} rows`] = Math.round((COMMITS / ms) * 1000);
      out[`CPU µs/commit (${existing} rows)`] = Math.round(((cpu.user + cpu.system + server) / COMMITS) * 10) / 10;
      // Of which the server process's, where it has one of its own: the rest is the client's.
      if (e.serverCpu !== undefined) out[`server CPU µs/commit (${existing} rows)`] = Math.round((server / COMMITS) * 10) / 10;
      if (main !== null && main0 !== null) out[`main thread µs/commit (${existing} rows)`] = Math.round(((main - main0) / COMMITS) * 10) / 10;
      if (queued !== null && queued0 !== null) out[`main thread queued µs/commit (${existing} rows)`] = Math.round(((queued - queued0) / COMMITS) * 10) / 10;
      await new Promise((resolve) => setImmediate(resolve));
      const gc = gcWithin(t0, t1);
      // This process's collections only: a server process of its own (quire-pgwire-proc) is not counted.
      out[`GC ms (${existing} rows)`] = Math.round(gc.ms * 10) / 10;
      out[`GCs (${existing} rows)`] = gc.count;
      if (syncs !== undefined && syncs0 !== undefined) out[`fsyncs/commit (${existing} rows)`] = Math.round(((syncs - syncs0) / COMMITS) * 1000) / 1000;
      // The rest went through the thread pool: concurrent writers, or a disk the pacer judged slow.
      if (inline !== undefined && inline0 !== undefined) out[`inline/commit (${existing} rows)`] = Math.round(((inline - inline0) / COMMITS) * 1000) / 1000;
      await e.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const dir = mkdtempSync(join(DIR, 'quire-commits-'));
  try {
    const e = await make(dir);
    await e.exec('CREATE TABLE warm (id int, v float8, s text)');
    await e.exec(`INSERT INTO warm SELECT i, i * 0.5, 'row-' || i FROM generate_series(1, ${Math.min(BULK, 10000)}) i`);
    await parentTable(e, BULK);
    await e.exec(`CREATE TABLE ${TABLE}`);
    const t0 = performance.now();
    await e.exec(`INSERT INTO t SELECT i, i * 0.5, 'row-' || i FROM generate_series(1, ${BULK}) i`);
    const ms = performance.now() - t0;
    out[`bulk load MB/s (${BULK} rows)`] = Math.round(((BULK * ROW_BYTES) / 1e6 / (ms / 1000)) * 10) / 10;
    await e.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

const ENGINES: Record<string, (dir: string) => Promise<Engine>> = {
  quire,
  'quire-pgwire': quirePgwire,
  'quire-pgwire-proc': (dir) => quirePgwireProc(dir),
  sqlite,
  pglite,
  'quire-sessions': quireSessions,
  'quire-pgwire-clients': quirePgwireClients,
  'quire-pgwire-proc-clients': (dir) => quirePgwireProc(dir, CLIENTS),
  'quire-pgwire-proc-raw': (dir) => quirePgwireProc(dir, 1, true),
  'sqlite-connections': sqliteConnections,
};
const engines = arg('engines', 'quire,quire-pgwire,quire-pgwire-proc,sqlite,pglite')
  .split(',')
  .map((name) => {
    const make = ENGINES[name];
    if (make === undefined) throw new Error(`unknown engine "${name}" (known: ${Object.keys(ENGINES).join(', ')})`);
    return make;
  });
const runs: Record<string, number | string>[][] = engines.map(() => []);
// Run r starts with engine r mod n: whoever goes first meets the disk as the last one's writes left it
// (its journal, writeback of the setup's rows), and no engine should always be the one that does.
for (let r = 0; r < RUNS; r++) {
  for (let k = 0; k < engines.length; k++) {
    const i = (r + k) % engines.length;
    runs[i]!.push(await measure(engines[i]!));
    // --each: every run's figures as they come, not only the medians (a disk that swings shows in them).
    if (EACH) console.log(JSON.stringify({ run: r + 1, ...runs[i]![runs[i]!.length - 1] }));
  }
}
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
await endPgwireServerProcess();
console.table(
  runs.map((rs) => Object.fromEntries(Object.keys(rs[0]!).map((k) => [k, typeof rs[0]![k] === 'number' ? median(rs.map((x) => x[k] as number)) : rs[0]![k]!]))),
);

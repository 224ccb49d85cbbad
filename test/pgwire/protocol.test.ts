/**
 * The wire protocol byte by byte, through pg-protocol: startup, simple and extended query, portals
 * with max_rows (PortalSuspended exactly when rows remain), error recovery up to Sync, transaction
 * status, cancel requests, SCRAM, and concurrent clients.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { names, RawClient, rawFields, rowsOf, serialize, startFixture, type Fixture } from './helpers.js';

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(async () => {
  await fx.server.close();
});

describe('startup', () => {
  it('reports parameters, key data and idle status', async () => {
    const c = await RawClient.open(fx.server.port);
    c.send(serialize.startup({ user: 'tester', database: 'quire', application_name: 'proto-test', TimeZone: 'Europe/Paris' }));
    await c.next('readyForQuery');
    const ms = c.take();
    expect(names(ms)[0]).toBe('authenticationOk');
    const params = Object.fromEntries(ms.filter((m) => m.name === 'parameterStatus').map((m) => [m.parameterName, m.parameterValue]));
    expect(params).toMatchObject({ server_version: '16.0', client_encoding: 'UTF8', application_name: 'proto-test', TimeZone: 'Europe/Paris', integer_datetimes: 'on', standard_conforming_strings: 'on', session_authorization: 'tester' });
    const key = ms.find((m) => m.name === 'backendKeyData')!;
    expect(key.processID).toBeGreaterThan(0);
    expect(ms.at(-1)).toMatchObject({ name: 'readyForQuery', status: 'I' });
    c.end();
  });

  it('answers SSLRequest with N and continues in plain text', async () => {
    // A plain socket: the single 'N' byte is not a framed message, so pg-protocol's parser is not used.
    const sock = connect(fx.server.port, '127.0.0.1');
    await new Promise<void>((r) => sock.once('connect', () => r()));
    let got = Buffer.alloc(0);
    const wait = (pred: (b: Buffer) => boolean): Promise<void> =>
      new Promise((resolve) => {
        const on = (d: Buffer): void => {
          got = Buffer.concat([got, d]);
          if (pred(got)) {
            sock.off('data', on);
            resolve();
          }
        };
        sock.on('data', on);
      });
    const n = wait((b) => b.length >= 1);
    sock.write(serialize.requestSsl());
    await n;
    expect(got.toString()).toBe('N');
    got = Buffer.alloc(0);
    // AuthenticationOk (R, length 8, 0) … ReadyForQuery (Z, length 5, 'I') last.
    const ready = wait((b) => b.length >= 6 && b.subarray(-6).equals(Buffer.from([0x5a, 0, 0, 0, 5, 0x49])));
    sock.write(serialize.startup({ user: 'tester' }));
    await ready;
    expect(got.subarray(0, 9)).toEqual(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0]));
    sock.destroy();
  });

  it('refuses a startup without a user name', async () => {
    const c = await RawClient.open(fx.server.port);
    c.send(serialize.startup({ database: 'quire' }));
    const e = await c.next('error');
    expect(e.code).toBe('28000');
    await c.waitClosed();
  });
});

describe('simple query', () => {
  it('streams rows with a RowDescription carrying type OIDs', async () => {
    const c = await RawClient.ready(fx.server.port);
    const ms = await c.roundTrip(serialize.query('select a, b, c, d, e, f, g from t where a <= 2 order by a'));
    expect(names(ms)).toEqual(['rowDescription', 'dataRow', 'dataRow', 'commandComplete', 'readyForQuery']);
    const fields = ms[0]!.fields as { name: string; dataTypeID: number; dataTypeModifier: number }[];
    expect(fields.map((f) => f.dataTypeID)).toEqual([23, 25, 701, 1700, 1082, 1184, 16]);
    expect(fields[3]!.dataTypeModifier).toBe(((10 << 16) | 2) + 4);
    expect(rowsOf(ms)[1]).toEqual(['2', 'row 2', '3', '0.50', '2024-01-03', '2024-01-01 02:00:00+00', 't']);
    expect(ms[3]!.text).toBe('SELECT 2');
    c.end();
  });

  it('runs several statements, and stops at the first error', async () => {
    const c = await RawClient.ready(fx.server.port);
    const ms = await c.roundTrip(serialize.query('select 1; select 1/0; select 2'));
    // The failing SELECT may already have sent its RowDescription (PostgreSQL does for run-time errors).
    expect(names(ms).filter((n) => n !== 'rowDescription')).toEqual(['dataRow', 'commandComplete', 'error', 'readyForQuery']);
    expect(ms.find((m) => m.name === 'error')).toMatchObject({ code: '22012', severity: 'ERROR', message: 'division by zero' });
    c.end();
  });

  it('reports error positions', async () => {
    const c = await RawClient.ready(fx.server.port);
    const ms = await c.roundTrip(serialize.query('select nosuch from t'));
    expect(ms[0]).toMatchObject({ name: 'error', code: '42703', position: '8' });
    c.end();
  });

  it('answers an empty query with EmptyQueryResponse', async () => {
    const c = await RawClient.ready(fx.server.port);
    expect(names(await c.roundTrip(serialize.query('')))).toEqual(['emptyQuery', 'readyForQuery']);
    expect(names(await c.roundTrip(serialize.query(' -- nothing\n')))).toEqual(['emptyQuery', 'readyForQuery']);
    c.end();
  });

  it('tracks transaction status and the failed-transaction state', async () => {
    const c = await RawClient.ready(fx.server.port);
    expect((await c.roundTrip(serialize.query('begin'))).at(-1)).toMatchObject({ status: 'T' });
    const failed = await c.roundTrip(serialize.query('select 1/0'));
    expect(failed.at(-1)).toMatchObject({ status: 'E' });
    const ignored = await c.roundTrip(serialize.query('select 1'));
    expect(ignored[0]).toMatchObject({ name: 'error', code: '25P02' });
    const commit = await c.roundTrip(serialize.query('commit'));
    expect(commit.find((m) => m.name === 'commandComplete')!.text).toBe('ROLLBACK');
    expect(commit.at(-1)).toMatchObject({ status: 'I' });
    c.end();
  });

  it('keeps SET per connection and re-reports reported parameters', async () => {
    const a = await RawClient.ready(fx.server.port);
    const b = await RawClient.ready(fx.server.port);
    const ms = await a.roundTrip(serialize.query("set timezone = 'Asia/Tokyo'"));
    expect(ms.find((m) => m.name === 'parameterStatus')).toMatchObject({ parameterName: 'TimeZone', parameterValue: 'Asia/Tokyo' });
    expect(rowsOf(await a.roundTrip(serialize.query('show timezone')))).toEqual([['Asia/Tokyo']]);
    expect(rowsOf(await b.roundTrip(serialize.query('show timezone')))).toEqual([['UTC']]);
    a.end();
    b.end();
  });

  it('formats values with the session DateStyle and reports it', async () => {
    const c = await RawClient.ready(fx.server.port);
    const ms = await c.roundTrip(serialize.query("set datestyle = 'SQL, DMY'; select date '2024-01-02' as d"));
    expect(ms.find((m) => m.name === 'parameterStatus')).toMatchObject({ parameterName: 'DateStyle', parameterValue: 'SQL, DMY' });
    expect(rowsOf(ms)).toEqual([['02/01/2024']]);
    c.end();
  });

  it('runs SQL cursors: DECLARE SCROLL / FETCH / MOVE / CLOSE, WITH HOLD across COMMIT', async () => {
    const c = await RawClient.ready(fx.server.port);
    await c.roundTrip(serialize.query('begin; declare cur scroll cursor for select a from t order by a'));
    expect(rowsOf(await c.roundTrip(serialize.query('fetch 3 from cur')))).toEqual([['1'], ['2'], ['3']]);
    const mv = await c.roundTrip(serialize.query('move forward 4 in cur'));
    expect(mv.find((m) => m.name === 'commandComplete')!.text).toBe('MOVE 4');
    expect(rowsOf(await c.roundTrip(serialize.query('fetch backward 2 from cur')))).toEqual([['6'], ['5']]);
    await c.roundTrip(serialize.query('close cur; commit'));
    await c.roundTrip(serialize.query('declare held cursor with hold for select a from t order by a desc'));
    expect(rowsOf(await c.roundTrip(serialize.query('fetch 2 from held')))).toEqual([['10'], ['9']]);
    const closed = await c.roundTrip(serialize.query('close all'));
    expect(closed.find((m) => m.name === 'commandComplete')!.text).toBe('CLOSE CURSOR ALL');
    c.end();
  });

  it('handles COPY TO STDOUT and COPY FROM STDIN', async () => {
    const c = await RawClient.ready(fx.server.port);
    const out = await c.roundTrip(serialize.query('copy (select a, b from t where a <= 2 order by a) to stdout'));
    expect(names(out)).toEqual(['copyOutResponse', 'copyData', 'copyDone', 'commandComplete', 'readyForQuery']);
    expect(Buffer.from(out[1]!.chunk as Buffer).toString()).toBe('1\trow 1\n2\trow 2\n');
    await c.roundTrip(serialize.query('create table copied (x int, y text)'));
    c.take();
    c.send(serialize.query('copy copied from stdin; select count(*) from copied'));
    await c.next('copyInResponse');
    c.send([serialize.copyData(Buffer.from('1\tone\n2\t')), serialize.copyData(Buffer.from('two\n')), serialize.copyDone()]);
    await c.next('readyForQuery');
    const ms = c.take();
    expect(ms.find((m) => m.name === 'commandComplete')!.text).toBe('COPY 2');
    expect(rowsOf(ms)).toEqual([['2']]);
    c.end();
  });
});

describe('extended query', () => {
  it('parses, describes, binds and executes with typed parameters', async () => {
    const c = await RawClient.ready(fx.server.port);
    const ms = await c.roundTrip([
      serialize.parse({ name: 's1', text: 'select a, b from t where a > $1 and b <> $2 order by a', types: [23, 0] }),
      serialize.describe({ type: 'S', name: 's1' }),
      serialize.bind({ statement: 's1', values: ['7', 'row 9'] }),
      serialize.describe({ type: 'P' }),
      serialize.execute({}),
      serialize.sync(),
    ]);
    expect(names(ms)).toEqual(['parseComplete', 'parameterDescription', 'rowDescription', 'bindComplete', 'rowDescription', 'dataRow', 'dataRow', 'commandComplete', 'readyForQuery']);
    expect(ms[1]!.dataTypeIDs).toEqual([23, 25]);
    expect(rowsOf(ms)).toEqual([['8', 'row 8'], ['10', 'row 10']]);
    c.end();
  });

  it('Execute with max_rows: PortalSuspended exactly when rows remain', async () => {
    const c = await RawClient.ready(fx.server.port);
    // 10 rows in pages of 5: the second page ends the result, so it completes instead of suspending.
    c.send([serialize.parse({ text: 'select a from t order by a' }), serialize.bind({ portal: 'p' }), serialize.execute({ portal: 'p', rows: 5 }), serialize.flush()]);
    await c.next('portalSuspended');
    expect(rowsOf(c.take()).length).toBe(5);
    c.send([serialize.execute({ portal: 'p', rows: 5 }), serialize.flush()]);
    const done = await c.next('commandComplete');
    expect(done.text).toBe('SELECT 5');
    const page2 = c.take();
    expect(names(page2)).not.toContain('portalSuspended');
    expect(rowsOf(page2).map((r) => r[0])).toEqual(['6', '7', '8', '9', '10']);
    // An exhausted portal returns no rows and does not rerun.
    c.send([serialize.execute({ portal: 'p', rows: 5 }), serialize.sync()]);
    await c.next('readyForQuery');
    const again = c.take();
    expect(names(again)).toEqual(['commandComplete', 'readyForQuery']);
    expect(again[0]!.text).toBe('SELECT 0');
    c.end();
  });

  it('pages of 3 over 10 rows: 3 suspended pages then a final page of 1', async () => {
    const c = await RawClient.ready(fx.server.port);
    await c.roundTrip([serialize.query('begin')]);
    c.send([serialize.parse({ text: 'select a from t order by a' }), serialize.bind({ portal: 'q' }), serialize.sync()]);
    await c.next('readyForQuery');
    c.take();
    const seen: string[] = [];
    const ends: string[] = [];
    for (let i = 0; i < 4; i++) {
      const ms = await c.roundTrip([serialize.execute({ portal: 'q', rows: 3 }), serialize.sync()]);
      seen.push(...rowsOf(ms).map((r) => r[0]!));
      ends.push(ms.at(-2)!.name);
    }
    expect(seen).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
    expect(ends).toEqual(['portalSuspended', 'portalSuspended', 'portalSuspended', 'commandComplete']);
    await c.roundTrip(serialize.query('commit'));
    c.end();
  });

  it('portals outside a transaction block end at Sync', async () => {
    const c = await RawClient.ready(fx.server.port);
    await c.roundTrip([serialize.parse({ text: 'select a from t' }), serialize.bind({ portal: 'gone' }), serialize.execute({ portal: 'gone', rows: 2 }), serialize.sync()]);
    const ms = await c.roundTrip([serialize.execute({ portal: 'gone', rows: 2 }), serialize.sync()]);
    expect(ms[0]).toMatchObject({ name: 'error', code: '34000' });
    c.end();
  });

  it('skips to Sync after an error, then works again', async () => {
    const c = await RawClient.ready(fx.server.port);
    const ms = await c.roundTrip([
      serialize.parse({ text: 'select nosuch' }),
      serialize.bind({}),
      serialize.execute({}),
      serialize.sync(),
    ]);
    expect(names(ms)).toEqual(['error', 'readyForQuery']);
    const ok = await c.roundTrip([serialize.parse({ text: 'select 42' }), serialize.bind({}), serialize.execute({}), serialize.sync()]);
    expect(rowsOf(ok)).toEqual([['42']]);
    c.end();
  });

  it('validates parameter counts, statement and portal names', async () => {
    const c = await RawClient.ready(fx.server.port);
    let ms = await c.roundTrip([serialize.parse({ text: 'select $1::int' }), serialize.bind({ values: [] }), serialize.sync()]);
    expect(ms.find((m) => m.name === 'error')).toMatchObject({ code: '08P01' });
    ms = await c.roundTrip([serialize.bind({ statement: 'nope' }), serialize.sync()]);
    expect(ms[0]).toMatchObject({ name: 'error', code: '26000' });
    ms = await c.roundTrip([serialize.parse({ name: 'dup', text: 'select 1' }), serialize.parse({ name: 'dup', text: 'select 2' }), serialize.sync()]);
    expect(ms.find((m) => m.name === 'error')).toMatchObject({ code: '42P05' });
    ms = await c.roundTrip([serialize.parse({ text: 'select 1; select 2' }), serialize.sync()]);
    expect(ms[0]).toMatchObject({ name: 'error', code: '42601' });
    ms = await c.roundTrip([serialize.parse({ text: "select 'x'::int" }), serialize.bind({}), serialize.execute({}), serialize.sync()]);
    expect(ms.find((m) => m.name === 'error')).toMatchObject({ code: '22P02' });
    c.end();
  });

  it('sends binary results when asked, and decodes binary parameters', async () => {
    const c = await RawClient.ready(fx.server.port);
    const int4 = Buffer.alloc(4);
    int4.writeInt32BE(3);
    const ms = await c.roundTrip([
      serialize.parse({ text: 'select a, c, d, e, f, g, b from t where a = $1', types: [23] }),
      serialize.bind({ values: [int4], valueMapper: (v) => v, binary: true }),
      serialize.execute({}),
      serialize.sync(),
    ]);
    expect(names(ms)).toContain('dataRow');
    const row = rawFields(c.rawRows.at(-1)!) as Buffer[];
    expect(row[0]!.readInt32BE(0)).toBe(3);
    expect(row[1]!.readDoubleBE(0)).toBe(4.5);
    expect(row[2]!.toString('hex')).toBe('0001ffff000000021d4c'); // 0.75: one base-10000 digit 7500, weight -1, dscale 2
    expect(row[3]!.readInt32BE(0)).toBe(8769); // 2024-01-04 is day 8769 after 2000-01-01
    expect(row[4]!.readBigInt64BE(0)).toBe(757393200000000n); // 2024-01-01 03:00 UTC in µs since 2000
    expect(row[5]![0]).toBe(0);
    expect(row[6]!.toString()).toBe('row 3');
    c.end();
  });

  it('runs utility statements and DML through the extended protocol', async () => {
    const c = await RawClient.ready(fx.server.port);
    await c.roundTrip(serialize.query('create table ext (x int, y text)'));
    const ms = await c.roundTrip([
      serialize.parse({ text: 'insert into ext values ($1, $2) returning x + 1 as nx' }),
      serialize.bind({ values: ['5', 'five'] }),
      serialize.describe({ type: 'P' }),
      serialize.execute({}),
      serialize.parse({ text: 'show transaction_isolation' }),
      serialize.describe({ type: 'S' }),
      serialize.bind({}),
      serialize.execute({}),
      serialize.sync(),
    ]);
    expect(names(ms)).toEqual(['parseComplete', 'bindComplete', 'rowDescription', 'dataRow', 'commandComplete', 'parseComplete', 'parameterDescription', 'rowDescription', 'bindComplete', 'dataRow', 'commandComplete', 'readyForQuery']);
    expect(ms[4]!.text).toBe('INSERT 0 1');
    expect(rowsOf(ms)).toEqual([['6'], ['read committed']]);
    c.end();
  });
});

describe('pg_catalog', () => {
  it('answers catalog queries from the live catalog', async () => {
    const c = await RawClient.ready(fx.server.port);
    let ms = await c.roundTrip(serialize.query("select c.relname, n.nspname from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace where c.relkind = 'r' and n.nspname = 'public' order by 1"));
    expect(rowsOf(ms).map((r) => r[0])).toContain('t');
    ms = await c.roundTrip(serialize.query("select a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod) from pg_catalog.pg_attribute a where a.attrelid = 't'::regclass and a.attnum > 0 order by a.attnum"));
    expect(rowsOf(ms).slice(0, 4)).toEqual([['a', 'integer'], ['b', 'text'], ['c', 'double precision'], ['d', 'numeric(10,2)']]);
    ms = await c.roundTrip(serialize.query("select typname from pg_type where oid = 1184"));
    expect(rowsOf(ms)).toEqual([['timestamptz']]);
    ms = await c.roundTrip(serialize.query("select setting from pg_settings where name = 'standard_conforming_strings'"));
    expect(rowsOf(ms)).toEqual([['on']]);
    ms = await c.roundTrip(serialize.query("select table_name from information_schema.tables where table_schema = 'public'"));
    expect(rowsOf(ms).map((r) => r[0])).toContain('t');
    ms = await c.roundTrip(serialize.query('select current_schema(), current_database(), version()'));
    expect(rowsOf(ms)[0]!.slice(0, 2)).toEqual(['public', 'quire']);
    c.end();
  });

  it('pg_proc lists user-defined SQL functions and aggregates', async () => {
    const c = await RawClient.ready(fx.server.port);
    await c.roundTrip(serialize.query("create function proc_probe(a int, b text) returns text language sql as 'select b || a'"));
    await c.roundTrip(serialize.query("create aggregate proc_probe_agg(int) (sfunc = int4pl, stype = int4, initcond = '0')"));
    const ms = await c.roundTrip(serialize.query("select proname, prokind, prolang, prorettype, proargtypes, prosrc from pg_proc where proname like 'proc_probe%' order by 1"));
    expect(rowsOf(ms)).toEqual([
      ['proc_probe', 'f', '14', '25', '23 25', 'select b || a'],
      ['proc_probe_agg', 'a', '12', '23', '23', 'aggregate_dummy'],
    ]);
    await c.roundTrip(serialize.query('drop function proc_probe; drop aggregate proc_probe_agg(int)'));
    const after = await c.roundTrip(serialize.query("select count(*) from pg_proc where proname like 'proc_probe%'"));
    expect(rowsOf(after)).toEqual([['0']]);
    c.end();
  });

  it('system tables are not visible to the library API', async () => {
    expect(fx.db.listTables().map((t) => t.name)).not.toContain('pg_class');
    await expect(fx.db.query('select * from pg_class')).rejects.toMatchObject({ code: '42P01' });
  });

  it('catalog-only probes the engine cannot express answer with no rows rather than failing', async () => {
    const c = await RawClient.ready(fx.server.port);
    // psql's \du builds each role's memberships with ARRAY(subquery), which runs for real.
    const ms = await c.roundTrip(serialize.query('select r.rolname, array(select b.rolname from pg_catalog.pg_roles b where b.oid = r.oid) as memberof from pg_catalog.pg_roles r'));
    expect(names(ms)).toContain('dataRow');
    expect(rowsOf(ms).every((r) => r[1] === `{${r[0]}}`)).toBe(true);
    // A missing column is a real error.
    const err = await c.roundTrip(serialize.query('select array(select nosuch from t)'));
    expect(err[0]!.name).toBe('error');
    // = ANY over current_schemas() binds and runs for real now (text[]).
    const real = await c.roundTrip(serialize.query('select n.nspname, n.nspname = any(current_schemas(true)) as visible from pg_catalog.pg_namespace n order by 1'));
    expect(rowsOf(real)).toEqual([['information_schema', 'f'], ['pg_catalog', 't'], ['public', 't']]);
    c.end();
  });
});

describe('cancel requests', () => {
  it('cancels the running statement of the connection named by BackendKeyData', async () => {
    const c = await RawClient.open(fx.server.port);
    c.send(serialize.startup({ user: 'tester' }));
    const key = await c.next('backendKeyData');
    await c.next('readyForQuery');
    c.take();
    // A streaming query: the server reads it batch by batch and gives the event loop a turn between
    // batches, which is when the CancelRequest (another socket) is read. (Operators that consume
    // their whole input before producing a batch, like an aggregate or a filter that drops every
    // row, do not give that turn: see src/server/pgwire/README.md.)
    c.send(serialize.query('select g from generate_series(1, 2000000000) g where g % 100000 = 3'));
    await new Promise((r) => setTimeout(r, 300));
    const k = connect(fx.server.port, '127.0.0.1');
    await new Promise<void>((r) => k.once('connect', () => r()));
    // A wrong key is ignored; the right one cancels.
    k.write(serialize.cancel(key.processID as number, ((key.secretKey as number) ^ 1) | 0));
    k.end();
    const k2 = connect(fx.server.port, '127.0.0.1');
    await new Promise<void>((r) => k2.once('connect', () => r()));
    k2.write(serialize.cancel(key.processID as number, key.secretKey as number));
    k2.end();
    const e = await c.next('error', 30_000);
    expect(e.code).toBe('57014');
    await c.next('readyForQuery');
    expect(rowsOf(await c.roundTrip(serialize.query('select 1')))).toEqual([['1']]);
    c.end();
  });
});

describe('SCRAM-SHA-256', () => {
  it('authenticates the right password and rejects a wrong one', async () => {
    const sfx = await startFixture({ password: 's3cret' });
    try {
      const pg = (await import('pg')).default;
      const ok = new pg.Client({ host: '127.0.0.1', port: sfx.server.port, user: 'alice', password: 's3cret', database: 'quire' });
      await ok.connect();
      expect((await ok.query('select 1 as x')).rows).toEqual([{ x: 1 }]);
      await ok.end();
      const bad = new pg.Client({ host: '127.0.0.1', port: sfx.server.port, user: 'alice', password: 'wrong', database: 'quire' });
      await expect(bad.connect()).rejects.toMatchObject({ code: '28P01' });
      // Without a password the client is refused at the SCRAM step too.
      const c = await RawClient.open(sfx.server.port);
      c.send(serialize.startup({ user: 'x' }));
      const auth = await c.next('authenticationSASL');
      expect(auth.mechanisms).toEqual(['SCRAM-SHA-256']);
      c.send(serialize.sendSASLInitialResponseMessage('SCRAM-SHA-256', 'n,,n=*,r=abc'));
      await c.next('authenticationSASLContinue');
      c.send(serialize.sendSCRAMClientFinalMessage('c=biws,r=nottherightnonce,p=AAAA'));
      expect((await c.next('error')).severity).toBe('FATAL');
      await c.waitClosed();
    } finally {
      await sfx.server.close();
    }
  });
});

describe('concurrency', () => {
  it('serves many clients at once, each with its own session', async () => {
    const clients = await Promise.all(Array.from({ length: 12 }, () => RawClient.ready(fx.server.port)));
    const results = await Promise.all(
      clients.map(async (c, i) => {
        await c.roundTrip(serialize.query(`begin; declare k${i} cursor for select a * ${i} from t order by a`));
        const rows: string[] = [];
        for (let p = 0; p < 4; p++) rows.push(...rowsOf(await c.roundTrip(serialize.query(`fetch 3 from k${i}`))).map((r) => r[0]!));
        await c.roundTrip(serialize.query('commit'));
        return rows;
      }),
    );
    results.forEach((rows, i) => expect(rows).toEqual(Array.from({ length: 10 }, (_, k) => String((k + 1) * i))));
    for (const c of clients) c.end();
  });

  it('a slow reader does not block other clients', async () => {
    const big = await RawClient.ready(fx.server.port);
    big.socket.pause();
    big.send(serialize.query("select g, repeat('x', 200) from generate_series(1, 200000) g"));
    const other = await RawClient.ready(fx.server.port);
    expect(rowsOf(await other.roundTrip(serialize.query('select 7')))).toEqual([['7']]);
    other.end();
    big.socket.destroy();
  });
});

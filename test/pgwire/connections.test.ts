/**
 * Hostile clients on the PostgreSQL port, over real sockets: pipelined SSL/GSSENC negotiation,
 * oversized messages before authentication, the authentication timeout, --max-connections (53300)
 * and wrong-password throttling. After each attack the server must still answer `select 1`, to a
 * second client that was connected all along and to a new one.
 */
import { connect, Socket } from 'node:net';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { GSSENC_REQUEST } from '../../src/server/pgwire/codec.js';
import { RawClient, rowsOf, serialize, startFixture, type Fixture } from './helpers.js';

const fixtures: Fixture[] = [];
afterEach(async () => {
  for (const f of fixtures.splice(0)) await f.server.close();
});
async function fixture(opts: Parameters<typeof startFixture>[0] = {}): Promise<Fixture> {
  const f = await startFixture(opts);
  fixtures.push(f);
  return f;
}

/** A plain socket that records every byte and when it was closed. */
class Wire {
  data = Buffer.alloc(0);
  closed = false;
  readonly socket: Socket;
  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (d: Buffer) => (this.data = Buffer.concat([this.data, d])));
    socket.on('close', () => (this.closed = true));
    socket.on('error', () => undefined);
  }
  static async open(port: number, localAddress?: string): Promise<Wire> {
    const s = connect({ port, host: '127.0.0.1', ...(localAddress ? { localAddress } : {}) });
    await new Promise<void>((resolve, reject) => {
      s.once('connect', resolve);
      s.once('error', reject);
    });
    return new Wire(s);
  }
  async until(pred: (w: Wire) => boolean, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pred(this)) {
      if (Date.now() > deadline) throw new Error(`timeout; got ${this.data.length} bytes, closed=${this.closed}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  /** The SQLSTATE and message of the first ErrorResponse in what was received after `from`. */
  error(from = 0): { code: string; message: string; severity: string } | null {
    const b = this.data;
    for (let off = from; off + 5 <= b.length; ) {
      const len = b.readInt32BE(off + 1);
      if (b[off] === 0x45) {
        const fields = new Map<string, string>();
        for (let i = off + 5; i < off + 1 + len && b[i] !== 0; ) {
          const end = b.indexOf(0, i + 1);
          fields.set(String.fromCharCode(b[i]!), b.toString('utf8', i + 1, end));
          i = end + 1;
        }
        return { code: fields.get('C')!, message: fields.get('M')!, severity: fields.get('S')! };
      }
      off += 1 + len;
    }
    return null;
  }
  destroy(): void {
    this.socket.destroy();
  }
}

/** Server-side close events trail the client's by a moment. */
async function connectionsSettle(fx: Fixture, n: number, timeoutMs = 5000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (fx.server.connections !== n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  return fx.server.connections;
}

const READY_IDLE = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);

async function selectOne(port: number, extra: Partial<pg.ClientConfig> = {}): Promise<number> {
  const c = new pg.Client({ host: '127.0.0.1', port, user: 'tester', database: 'quire', ...extra });
  await c.connect();
  try {
    return (await c.query('select 1 as x')).rows[0].x as number;
  } finally {
    await c.end();
  }
}

/** A node-postgres client whose socket leaves from another loopback address (Linux routes all of 127/8 to lo). */
function clientFrom(localAddress: string, cfg: pg.ClientConfig): pg.Client {
  return new pg.Client({
    ...cfg,
    stream: () => {
      const s = new Socket();
      const orig = s.connect.bind(s) as (o: object) => Socket;
      (s as unknown as { connect: (port: number, host: string) => Socket }).connect = (port: number, host: string) => orig({ port, host, localAddress });
      return s;
    },
  });
}

describe('SSL and GSSAPI negotiation', () => {
  it('answers an SSLRequest pipelined with the startup packet in one write, then starts the session', async () => {
    const fx = await fixture({ authTimeoutMs: 60_000 });
    const w = await Wire.open(fx.server.port);
    const t0 = Date.now();
    w.socket.write(Buffer.concat([serialize.requestSsl(), serialize.startup({ user: 'tester', database: 'quire' })]));
    await w.until((x) => x.data.length >= 7 && x.data.subarray(-6).equals(READY_IDLE), 3000);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(w.data[0]).toBe(0x4e); // 'N'
    expect(w.data.subarray(1, 10)).toEqual(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0])); // AuthenticationOk
    // The session works: a query pipelined after the negotiation gets its rows.
    const before = w.data.length;
    w.socket.write(serialize.query('select 41 + 1'));
    await w.until((x) => x.data.length > before && x.data.subarray(-6).equals(READY_IDLE));
    expect(w.data.subarray(before).includes(Buffer.from('42'))).toBe(true);
    w.destroy();
  });

  it('handles GSSENCRequest and SSLRequest pipelined together with the startup packet', async () => {
    const fx = await fixture();
    const w = await Wire.open(fx.server.port);
    const gss = Buffer.alloc(8);
    gss.writeInt32BE(8, 0);
    gss.writeInt32BE(GSSENC_REQUEST, 4);
    w.socket.write(Buffer.concat([gss, serialize.requestSsl(), serialize.startup({ user: 'tester' })]));
    await w.until((x) => x.data.length >= 8 && x.data.subarray(-6).equals(READY_IDLE), 3000);
    expect(w.data.subarray(0, 2).toString()).toBe('NN');
    w.destroy();
  });

  it('refuses a repeated SSLRequest with 08P01 and closes', async () => {
    const fx = await fixture();
    const w = await Wire.open(fx.server.port);
    w.socket.write(Buffer.concat([serialize.requestSsl(), serialize.requestSsl()]));
    await w.until((x) => x.closed);
    expect(w.data[0]).toBe(0x4e);
    expect(w.error(1)).toMatchObject({ code: '08P01', severity: 'FATAL' });
    expect(await selectOne(fx.server.port)).toBe(1);
  });
});

describe('before authentication', () => {
  it('refuses a startup packet larger than the pre-authentication limit on its header alone', async () => {
    const fx = await fixture({ maxPreAuthBytes: 4096 });
    const w = await Wire.open(fx.server.port);
    const head = Buffer.alloc(8);
    head.writeInt32BE(9000, 0); // under PostgreSQL's 10000, over this server's 4096
    head.writeInt32BE(196608, 4);
    w.socket.write(head); // the other 8992 bytes are never sent
    await w.until((x) => x.closed);
    expect(w.error()).toMatchObject({ code: '08P01', severity: 'FATAL', message: 'startup packet of 9000 bytes is larger than the 4096 bytes accepted before authentication' });
    expect(await connectionsSettle(fx, 0)).toBe(0);
  });

  it('refuses an oversized SASL message (1 MiB declared) without waiting for its body', async () => {
    const fx = await fixture({ password: 'pw' });
    const c = await RawClient.open(fx.server.port);
    c.send(serialize.startup({ user: 'tester' }));
    await c.next('authenticationSASL');
    const head = Buffer.alloc(5);
    head[0] = 0x70; // 'p'
    head.writeInt32BE(1 << 20, 1);
    c.send(head);
    const e = await c.next('error');
    expect(e).toMatchObject({ severity: 'FATAL', code: '08P01' });
    expect(String(e.message)).toMatch(/larger than the 8192 bytes accepted before authentication/);
    await c.waitClosed();
  });

  it('closes 20 connections that each pour 1 MiB before authenticating; memory is not kept and the server still answers', async () => {
    const fx = await fixture({ password: 'pw' });
    const peer = new pg.Client({ host: '127.0.0.1', port: fx.server.port, user: 'tester', password: 'pw', database: 'quire' });
    await peer.connect();
    const heapBefore = process.memoryUsage().heapUsed;
    const wires = await Promise.all(Array.from({ length: 20 }, () => Wire.open(fx.server.port)));
    const junk = Buffer.alloc(1 << 20, 0x41);
    for (const w of wires) {
      w.socket.write(serialize.startup({ user: 'tester' }));
      w.socket.write(junk);
    }
    await Promise.all(wires.map((w) => w.until((x) => x.closed)));
    for (const w of wires) expect(w.error()?.code).toBe('08P01');
    expect(await connectionsSettle(fx, 1)).toBe(1);
    if (global.gc) global.gc();
    // The 20 MiB sent never accumulate in the server (same process here): allow a generous margin.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(16 << 20);
    expect((await peer.query('select 1 as x')).rows).toEqual([{ x: 1 }]);
    await peer.end();
    expect(await selectOne(fx.server.port, { password: 'pw' })).toBe(1);
  });

  it('ends a connection that does not authenticate within the authentication timeout', async () => {
    const fx = await fixture({ authTimeoutMs: 300 });
    const idle = await Wire.open(fx.server.port);
    const half = await Wire.open(fx.server.port);
    half.socket.write(serialize.startup({ user: 'tester' }).subarray(0, 6)); // a startup packet that never completes
    const t0 = Date.now();
    await Promise.all([idle.until((x) => x.closed, 3000), half.until((x) => x.closed, 3000)]);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(idle.error()).toMatchObject({ code: '08006', message: 'canceling authentication due to timeout' });
    expect(half.error()).toMatchObject({ code: '08006' });
    expect(await connectionsSettle(fx, 0)).toBe(0);
    // An authenticated session is not subject to it.
    const c = new pg.Client({ host: '127.0.0.1', port: fx.server.port, user: 'tester', database: 'quire' });
    await c.connect();
    await new Promise((r) => setTimeout(r, 500));
    expect((await c.query('select 1 as x')).rows).toEqual([{ x: 1 }]);
    await c.end();
  });
});

describe('--max-connections', () => {
  it('150 idle sockets against a limit of 100: a client gets 53300; once they close, clients connect again', async () => {
    const fx = await fixture({ maxConnections: 100 });
    const peer = new pg.Client({ host: '127.0.0.1', port: fx.server.port, user: 'tester', database: 'quire' });
    await peer.connect(); // holds one of the 100 slots all along
    const idle: Wire[] = [];
    for (let i = 0; i < 150; i++) idle.push(await Wire.open(fx.server.port));
    const c = new pg.Client({ host: '127.0.0.1', port: fx.server.port, user: 'tester', database: 'quire' });
    const err = await c.connect().then(
      () => null,
      (e: unknown) => e as { code?: string; message?: string },
    );
    expect(err).toMatchObject({ code: '53300', message: 'sorry, too many clients already' });
    // The connected session keeps working while the server is full.
    expect((await peer.query('select 1 as x')).rows).toEqual([{ x: 1 }]);
    // At most the limit plus as many refusals in progress: never 150 + more held open.
    expect(fx.server.connections).toBeLessThanOrEqual(200);
    for (const w of idle) w.destroy();
    expect(await connectionsSettle(fx, 1)).toBe(1);
    expect(await selectOne(fx.server.port)).toBe(1);
    await peer.end();
  }, 30_000);

  it('closes sockets at once when both the slots and the refusals in progress are used up', async () => {
    const fx = await fixture({ maxConnections: 2 });
    const held = [await Wire.open(fx.server.port), await Wire.open(fx.server.port)];
    const refusing = [await Wire.open(fx.server.port), await Wire.open(fx.server.port)];
    const extra = await Wire.open(fx.server.port);
    await extra.until((x) => x.closed, 2000);
    expect(extra.data.length).toBe(0);
    // A refused client that sends its startup packet reads PostgreSQL's answer.
    refusing[0]!.socket.write(serialize.startup({ user: 'tester' }));
    await refusing[0]!.until((x) => x.closed);
    expect(refusing[0]!.error()).toMatchObject({ code: '53300', severity: 'FATAL' });
    for (const w of [...held, ...refusing]) w.destroy();
    expect(await connectionsSettle(fx, 0)).toBe(0);
    expect(await selectOne(fx.server.port)).toBe(1);
  });

  it('still accepts a cancel request while full', async () => {
    const fx = await fixture({ maxConnections: 1 });
    const c = await RawClient.ready(fx.server.port);
    const w = await Wire.open(fx.server.port);
    w.socket.write(serialize.cancel(1, 2)); // an unknown pid: ignored, but answered by closing, not 53300
    await w.until((x) => x.closed);
    expect(w.data.length).toBe(0);
    expect(rowsOf(await c.roundTrip(serialize.query('select 1')))).toEqual([['1']]);
    c.end();
  });
});

describe('failed passwords', () => {
  it('bounds wrong passwords in a loop to a few per second (default delays)', async () => {
    const fx = await fixture({ password: 'right' });
    const t0 = Date.now();
    const n = 4;
    for (let i = 0; i < n; i++) {
      const c = new pg.Client({ host: '127.0.0.1', port: fx.server.port, user: 'mallory', password: `guess${i}`, database: 'quire' });
      await expect(c.connect()).rejects.toMatchObject({ code: '28P01' });
    }
    const perSecond = n / ((Date.now() - t0) / 1000);
    // 500 ms per failure, and from the third on a widening gap: about 1.6 tries/s here, never above 2.
    expect(perSecond).toBeLessThanOrEqual(2);
    expect(fx.server.throttledAddresses).toBe(1);
    // The right password still gets in (after its wait), and clears the address's record.
    expect(await selectOne(fx.server.port, { password: 'right' })).toBe(1);
    expect(fx.server.throttledAddresses).toBe(0);
  }, 30_000);

  it('spaces parallel attempts from one address; another address and a connected session are not slowed', async () => {
    const fx = await fixture({ password: 'right', authThrottle: { failureDelayMs: 50, stepMs: 100, maxGapMs: 200 } });
    const peer = new pg.Client({ host: '127.0.0.1', port: fx.server.port, user: 'tester', password: 'right', database: 'quire' });
    await peer.connect();
    const wrong = (): Promise<unknown> =>
      new pg.Client({ host: '127.0.0.1', port: fx.server.port, user: 'mallory', password: 'nope', database: 'quire' }).connect().then(
        () => 'connected',
        (e: { code?: string }) => e.code,
      );
    // First wave: the address has no record yet, so all 10 start at once and fail after 50 ms.
    expect(await Promise.all(Array.from({ length: 10 }, wrong))).toEqual(Array(10).fill('28P01'));
    // Second wave, in parallel too: each attempt now waits for its slot, 200 ms apart.
    const t0 = Date.now();
    let peerMs = 0;
    const second = Promise.all(Array.from({ length: 10 }, wrong));
    const p0 = Date.now();
    expect((await peer.query('select 1 as x')).rows).toEqual([{ x: 1 }]);
    peerMs = Date.now() - p0;
    const other = clientFrom('127.0.0.2', { host: '127.0.0.1', port: fx.server.port, user: 'tester', password: 'right', database: 'quire' });
    const o0 = Date.now();
    await other.connect();
    const otherMs = Date.now() - o0;
    expect((await other.query('select 1 as x')).rows).toEqual([{ x: 1 }]);
    await other.end();
    expect(await second).toEqual(Array(10).fill('28P01'));
    const elapsed = Date.now() - t0;
    expect(elapsed).toBeGreaterThanOrEqual(9 * 200);
    expect(10 / (elapsed / 1000)).toBeLessThanOrEqual(5.6);
    expect(peerMs).toBeLessThan(500);
    expect(otherMs).toBeLessThan(500);
    expect((await peer.query('select 1 as x')).rows).toEqual([{ x: 1 }]);
    await peer.end();
  }, 30_000);

  it('refuses at once (28000) an attempt whose slot is further away than maxWaitMs, so a flood cannot park connections', async () => {
    const fx = await fixture({ password: 'right', authThrottle: { failureDelayMs: 20, stepMs: 100, maxGapMs: 500, maxWaitMs: 1000 } });
    const attempt = (password: string): Promise<{ code: string; ms: number }> => {
      const t = Date.now();
      const c = new pg.Client({ host: '127.0.0.1', port: fx.server.port, user: 'mallory', password, database: 'quire' });
      return c.connect().then(
        async () => {
          const ms = Date.now() - t;
          await c.end();
          return { code: 'ok', ms };
        },
        (e: { code?: string }) => ({ code: e.code ?? '?', ms: Date.now() - t }),
      );
    };
    expect((await Promise.all(Array.from({ length: 5 }, () => attempt('nope')))).map((r) => r.code)).toEqual(Array(5).fill('28P01'));
    const wave = await Promise.all(Array.from({ length: 10 }, () => attempt('nope')));
    const refused = wave.filter((r) => r.code === '28000');
    expect(wave.filter((r) => r.code === '28P01').length).toBeGreaterThanOrEqual(2); // slots 0, 500, (1000) ms away
    expect(refused.length).toBeGreaterThanOrEqual(6);
    for (const r of refused) expect(r.ms).toBeLessThan(500); // failureDelayMs (20), not a queued slot
    expect(await connectionsSettle(fx, 0)).toBe(0);
    // The right password from the same address gets in once its (bounded) wait is over.
    const ok = await attempt('right');
    expect(ok.code).toBe('ok');
    expect(ok.ms).toBeLessThan(2500);
  }, 30_000);

  it('a wrong user name (with --user) is delayed like a wrong password', async () => {
    const fx = await fixture({ password: 'right', user: 'quire', authThrottle: { failureDelayMs: 300 } });
    const t0 = Date.now();
    await expect(new pg.Client({ host: '127.0.0.1', port: fx.server.port, user: 'root', password: 'right', database: 'quire' }).connect()).rejects.toMatchObject({ code: '28000' });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    expect(await selectOne(fx.server.port, { user: 'quire', password: 'right' })).toBe(1);
  });
});

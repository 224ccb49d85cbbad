/**
 * Hostile input: random bytes, truncated and oversized messages, garbage inside well-framed
 * messages, and abrupt disconnects. Each bad connection must get an ErrorResponse or be closed,
 * and the server must keep serving everyone else (checked after every round with a fresh client
 * and with one long-lived client that stays connected throughout). Seeded, so failures replay.
 */
import { connect, type Socket } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawClient, rowsOf, serialize, startFixture, type Fixture } from './helpers.js';

let fx: Fixture;
let witness: RawClient;
beforeAll(async () => {
  fx = await startFixture();
  witness = await RawClient.ready(fx.server.port);
});
afterAll(async () => {
  witness.end();
  await fx.server.close();
});

/** Sends bytes on a fresh socket and waits until the server answers and/or closes (or a short quiet period). */
/**
 * Sends `bytes` on a fresh connection and collects what comes back until the server closes it, or has
 * answered and then been quiet for 150 ms, or `patience` ms passed without an answer (a server may
 * rightly wait for the rest of an incomplete message; a busy machine needs seconds for a first answer).
 */
async function blast(bytes: Buffer[], opts: { startup?: boolean; patience?: number } = {}): Promise<{ data: Buffer; closed: boolean }> {
  const s: Socket = connect(fx.server.port, '127.0.0.1');
  await new Promise<void>((r, j) => {
    s.once('connect', () => r());
    s.once('error', j);
  });
  let data = Buffer.alloc(0);
  let closed = false;
  let lastData = 0;
  s.on('data', (d: Buffer) => {
    data = Buffer.concat([data, d]);
    lastData = Date.now();
  });
  s.on('error', () => undefined);
  s.on('close', () => (closed = true));
  if (opts.startup !== false) s.write(serialize.startup({ user: 'fuzz' }));
  for (const b of bytes) s.write(b);
  const start = Date.now();
  const patience = opts.patience ?? 5000;
  while (!closed && (lastData === 0 ? Date.now() - start < patience : Date.now() - lastData < 150)) {
    await new Promise((r) => setTimeout(r, 10));
  }
  s.destroy();
  return { data, closed };
}

async function serverStillServes(): Promise<void> {
  const c = await RawClient.ready(fx.server.port);
  expect(rowsOf(await c.roundTrip(serialize.query('select count(*) from t')))).toEqual([['10']]);
  c.end();
  expect(rowsOf(await witness.roundTrip(serialize.query('select 1 + 1')))).toEqual([['2']]);
}

const frame = (type: number, body: Buffer, lenDelta = 0): Buffer => {
  const h = Buffer.alloc(5);
  h[0] = type;
  h.writeInt32BE(body.length + 4 + lenDelta, 1);
  return Buffer.concat([h, body]);
};

describe('malformed protocol input', () => {
  it('random bytes before and after startup', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 300 }), fc.boolean(), async (bytes, withStartup) => {
        // Only the server's survival is checked here, so an unanswered connection need not be waited for.
        await blast([Buffer.from(bytes)], { startup: withStartup, patience: 150 });
      }),
      { numRuns: 60, seed: 20261202 },
    );
    await serverStillServes();
  });

  it('well-framed messages with random bodies get ErrorResponse, not a crash', async () => {
    const types = [...'QPBDECSHXpdcfF'].map((c) => c.charCodeAt(0));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...types), fc.uint8Array({ maxLength: 64 }), async (type, body) => {
        const r = await blast([frame(type, Buffer.from(body)), serialize.sync(), serialize.query('select 1')]);
        // Either an answer came (errors, or a row for the trailing query) or the connection was closed.
        expect(r.data.length > 0 || r.closed).toBe(true);
      }),
      { numRuns: 80, seed: 7 },
    );
    await serverStillServes();
  });

  it('a malformed Bind is an error the connection recovers from at Sync', async () => {
    const c = await RawClient.ready(fx.server.port);
    const ms = await c.roundTrip([
      serialize.parse({ text: 'select 1' }),
      frame(0x42, Buffer.from([0, 0, 0, 1, 0, 0, 0xff, 0xff])),
      serialize.execute({}),
      serialize.sync(),
    ]);
    expect(ms.map((m) => m.name)).toEqual(['parseComplete', 'error', 'readyForQuery']);
    expect(ms[1]).toMatchObject({ code: '08P01' });
    expect(rowsOf(await c.roundTrip(serialize.query('select 5')))).toEqual([['5']]);
    c.end();
  });

  it('huge and impossible lengths close only that connection', async () => {
    for (const len of [0x7fffffff, -1, 0, 3, 0x40000000]) {
      const h = Buffer.alloc(5);
      h[0] = 0x51;
      h.writeInt32BE(len, 1);
      const r = await blast([h, Buffer.from('select 1')]);
      expect(r.closed || r.data.includes(Buffer.from('08P01'))).toBe(true);
    }
    // A huge startup packet length.
    const big = Buffer.alloc(8);
    big.writeInt32BE(0x7fffffff, 0);
    big.writeInt32BE(196608, 4);
    expect((await blast([big], { startup: false })).closed).toBe(true);
    // A protocol version the server does not speak.
    const v2 = Buffer.alloc(8);
    v2.writeInt32BE(8, 0);
    v2.writeInt32BE(131072, 4);
    const r = await blast([v2], { startup: false });
    expect(r.data.toString()).toContain('unsupported frontend protocol');
    await serverStillServes();
  });

  it('truncated messages and mid-message disconnects', async () => {
    const msgs = [serialize.query('select * from t'), serialize.parse({ text: 'select $1', types: [23] }), serialize.bind({ values: ['1'] }), serialize.execute({ rows: 1 })];
    for (const m of msgs) {
      for (const cut of [1, 3, 5, m.length - 1]) await blast([m.subarray(0, cut)]);
    }
    // A declared length larger than what is sent: the server waits, the client leaves.
    await blast([frame(0x51, Buffer.from('select 1\0'), 1000)]);
    await serverStillServes();
  });

  it('disconnecting in the middle of a large result', async () => {
    for (let i = 0; i < 5; i++) {
      const s = connect(fx.server.port, '127.0.0.1');
      await new Promise<void>((r) => s.once('connect', () => r()));
      s.on('error', () => undefined);
      s.write(serialize.startup({ user: 'quitter' }));
      s.write(serialize.query("select g, repeat('y', 100) from generate_series(1, 300000) g"));
      await new Promise<void>((r) => s.once('data', () => r()));
      s.destroy();
    }
    await serverStillServes();
  });

  it('random valid-looking message sequences keep the server consistent', async () => {
    const msg = fc.oneof(
      fc.constant(serialize.sync()),
      fc.constant(serialize.flush()),
      fc.constant(serialize.query('select a from t order by a')),
      fc.constant(serialize.query('begin')),
      fc.constant(serialize.query('commit')),
      fc.constant(serialize.query('select 1/0')),
      fc.constant(serialize.parse({ text: 'select a from t where a > $1', types: [23] })),
      fc.constant(serialize.parse({ name: 'n', text: 'select 1' })),
      fc.constant(serialize.bind({ values: ['3'] })),
      fc.constant(serialize.bind({ portal: 'p', values: ['x'] })),
      fc.constant(serialize.bind({ statement: 'n', portal: 'q' })),
      fc.constant(serialize.describe({ type: 'P' })),
      fc.constant(serialize.describe({ type: 'S', name: 'n' })),
      fc.integer({ min: 0, max: 4 }).map((rows) => serialize.execute({ rows })),
      fc.constant(serialize.execute({ portal: 'q', rows: 1 })),
      fc.constant(serialize.close({ type: 'P', name: 'p' })),
      fc.constant(serialize.close({ type: 'S', name: 'n' })),
      fc.constant(serialize.copyData(Buffer.from('junk'))),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(msg, { minLength: 1, maxLength: 25 }), async (seq) => {
        const c = await RawClient.ready(fx.server.port);
        try {
          // Whatever came before, a Sync and a query afterwards get ReadyForQuery and a result.
          c.take();
          c.send([...seq, serialize.sync(), serialize.query('rollback'), serialize.query('select 42 as marker')]);
          // Wait for the marker row and the ReadyForQuery after it (earlier Syncs answer first).
          const settled = (): boolean => {
            const i = c.messages.findIndex((m) => m.name === 'dataRow' && (m.fields as string[])[0] === '42');
            return i >= 0 && c.messages.slice(i).some((m) => m.name === 'readyForQuery');
          };
          for (let i = 0; i < 400 && !settled() && !c.closed; i++) await new Promise((r) => setTimeout(r, 10));
          const ms = c.take();
          expect(rowsOf(ms).at(-1)).toEqual(['42']);
          expect(ms.at(-1)).toMatchObject({ name: 'readyForQuery', status: 'I' });
        } finally {
          c.end();
        }
      }),
      { numRuns: 60, seed: 99 },
    );
    await serverStillServes();
  });
});

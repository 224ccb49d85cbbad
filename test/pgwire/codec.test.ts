/**
 * The server-side codec against pg-protocol (the client-side one): frontend messages serialised by
 * pg-protocol parse back to the same fields here, and backend messages built here parse in
 * pg-protocol. Plus the binary numeric layout and bounds checks on hostile input.
 */
import { PassThrough } from 'node:stream';
import { parse, serialize } from 'pg-protocol';
import { describe, expect, it } from 'vitest';
import { Numeric } from '../../src/index.js';
import { backend, FrameReader, parseFrontend, parseStartup, ProtocolError, type FrontendMessage } from '../../src/server/pgwire/codec.js';
import { decodeNumeric, decodeParam, encodeNumeric } from '../../src/server/pgwire/types.js';
import { T } from '../../src/common/types.js';

function frontend(buf: Buffer, startup = false): FrontendMessage[] {
  const r = new FrameReader({ maxMessage: 1 << 20 });
  r.startup = startup;
  r.push(buf);
  const out: FrontendMessage[] = [];
  for (let f = r.next(); f !== null; f = r.next()) out.push(parseFrontend(f.type, f.body));
  return out;
}

async function backendParsed(bufs: Buffer[]): Promise<Record<string, unknown>[]> {
  const s = new PassThrough();
  const out: Record<string, unknown>[] = [];
  const done = parse(s, (m) => out.push(m as unknown as Record<string, unknown>));
  s.end(Buffer.concat(bufs));
  await done;
  return out;
}

describe('frontend messages (serialised by pg-protocol)', () => {
  it('startup packet', () => {
    const r = new FrameReader({ maxMessage: 1 << 20 });
    r.push(serialize.startup({ user: 'u', database: 'd', application_name: 'x' }));
    const f = r.next()!;
    const m = parseStartup(f.body);
    expect(m.kind).toBe('startup');
    if (m.kind === 'startup') expect(Object.fromEntries(m.params)).toEqual({ user: 'u', database: 'd', application_name: 'x', client_encoding: 'UTF8' });
    r.push(serialize.cancel(1234, -5));
    expect(parseStartup(r.next()!.body)).toEqual({ kind: 'cancel', pid: 1234, key: -5 });
    r.push(serialize.requestSsl());
    expect(parseStartup(r.next()!.body)).toEqual({ kind: 'ssl' });
  });

  it('query, parse, bind, describe, execute, close, sync, flush, terminate', () => {
    const msgs = frontend(
      Buffer.concat([
        serialize.query('select 1'),
        serialize.parse({ name: 's', text: 'select $1', types: [23] }),
        serialize.bind({ portal: 'p', statement: 's', values: ['7', null] }),
        serialize.describe({ type: 'P', name: 'p' }),
        serialize.execute({ portal: 'p', rows: 5 }),
        serialize.close({ type: 'S', name: 's' }),
        serialize.sync(),
        serialize.flush(),
        serialize.copyData(Buffer.from('ab')),
        serialize.copyDone(),
        serialize.copyFail('no'),
        serialize.end(),
      ]),
    );
    expect(msgs).toEqual([
      { kind: 'query', sql: 'select 1' },
      { kind: 'parse', name: 's', sql: 'select $1', paramOids: [23] },
      { kind: 'bind', portal: 'p', statement: 's', paramFormats: [0, 0], params: [Buffer.from('7'), null], resultFormats: [0] },
      { kind: 'describe', target: 'P', name: 'p' },
      { kind: 'execute', portal: 'p', maxRows: 5 },
      { kind: 'close', target: 'S', name: 's' },
      { kind: 'sync' },
      { kind: 'flush' },
      { kind: 'copyData', data: Buffer.from('ab') },
      { kind: 'copyDone' },
      { kind: 'copyFail', message: 'no' },
      { kind: 'terminate' },
    ]);
  });

  it('waits for whole messages across chunk boundaries', () => {
    const all = Buffer.concat([serialize.query('select 123'), serialize.sync()]);
    const r = new FrameReader({ maxMessage: 1 << 20 });
    r.startup = false;
    const got: FrontendMessage[] = [];
    for (const byte of all) {
      r.push(Buffer.from([byte]));
      for (let f = r.next(); f !== null; f = r.next()) got.push(parseFrontend(f.type, f.body));
    }
    expect(got).toEqual([{ kind: 'query', sql: 'select 123' }, { kind: 'sync' }]);
  });

  it('rejects malformed bodies (recoverable) and bad frames (fatal)', () => {
    const bad = (type: string, body: number[]): ProtocolError => {
      try {
        parseFrontend(type.charCodeAt(0), Buffer.from(body));
      } catch (e) {
        return e as ProtocolError;
      }
      throw new Error('accepted');
    };
    expect(bad('Q', [0x61, 0x62]).fatal).toBe(false); // no terminator
    expect(bad('B', [0, 0, 0, 1]).fatal).toBe(false); // truncated counts
    expect(bad('B', [0, 0, 0, 0, 0, 1, 0x7f, 0xff, 0xff, 0xff]).fatal).toBe(false); // parameter longer than the message
    expect(bad('B', [0, 0, 0xff, 0xff]).fatal).toBe(false); // negative count
    expect(bad('D', [0x58, 0]).fatal).toBe(false); // bad subtype
    expect(bad('S', [1]).fatal).toBe(false); // trailing bytes
    expect(bad('~', []).fatal).toBe(true); // unknown type
    const r = new FrameReader({ maxMessage: 1000 });
    r.startup = false;
    r.push(Buffer.from([0x51, 0x7f, 0xff, 0xff, 0xff]));
    expect(() => r.next()).toThrow(/invalid message length/);
    const s = new FrameReader({ maxMessage: 1000 });
    s.push(Buffer.from([0, 0, 0, 2]));
    expect(() => s.next()).toThrow(/startup packet/);
  });
});

describe('backend messages (parsed by pg-protocol)', () => {
  it('round-trips the messages the server sends', async () => {
    const ms = await backendParsed([
      backend.authOk(),
      backend.authSasl(['SCRAM-SHA-256']),
      backend.parameterStatus('TimeZone', 'UTC'),
      backend.backendKeyData(42, -7),
      backend.rowDescription([{ name: 'a', tableOid: 0, column: 0, typeOid: 23, typeSize: 4, typeModifier: -1, format: 0 }]),
      backend.dataRow([Buffer.from('1'), null, Buffer.from('ü')]),
      backend.commandComplete('SELECT 1'),
      backend.portalSuspended(),
      backend.parameterDescription([23, 25]),
      backend.error({ severity: 'ERROR', code: '22012', message: 'division by zero', detail: 'd', hint: 'h', position: 8 }),
      backend.notice({ severity: 'WARNING', code: '25001', message: 'there is already a transaction in progress' }),
      backend.emptyQuery(),
      backend.noData(),
      backend.parseComplete(),
      backend.bindComplete(),
      backend.closeComplete(),
      backend.copyOutResponse(0),
      backend.copyData(Buffer.from('x\n')),
      backend.copyDone(),
      backend.copyInResponse(),
      backend.readyForQuery('T'),
    ]);
    expect(ms.map((m) => m.name)).toEqual([
      'authenticationOk', 'authenticationSASL', 'parameterStatus', 'backendKeyData', 'rowDescription', 'dataRow', 'commandComplete',
      'portalSuspended', 'parameterDescription', 'error', 'notice', 'emptyQuery', 'noData', 'parseComplete', 'bindComplete', 'closeComplete',
      'copyOutResponse', 'copyData', 'copyDone', 'copyInResponse', 'readyForQuery',
    ]);
    expect(ms[1]).toMatchObject({ mechanisms: ['SCRAM-SHA-256'] });
    expect(ms[3]).toMatchObject({ processID: 42, secretKey: -7 });
    expect(ms[5]).toMatchObject({ fields: ['1', null, 'ü'] });
    expect(ms[8]).toMatchObject({ dataTypeIDs: [23, 25] });
    expect(ms[9]).toMatchObject({ severity: 'ERROR', code: '22012', message: 'division by zero', detail: 'd', hint: 'h', position: '8' });
    expect(ms[20]).toMatchObject({ status: 'T' });
  });
});

describe('binary values', () => {
  it('numeric in PostgreSQL base-10000 layout, both ways', () => {
    const hex = (s: string): string => encodeNumeric(Numeric.parse(s)).toString('hex');
    // ndigits, weight, sign, dscale, digits — as numeric_send produces them.
    expect(hex('0.50')).toBe('0001ffff000000021388');
    expect(hex('123456.789')).toBe('0003000100000003000c0d801ed2');
    expect(hex('-0.0001')).toBe('0001ffff400000040001');
    expect(hex('10000')).toBe('00010001000000000001');
    expect(hex('0')).toBe('0000000000000000');
    expect(hex('NaN')).toBe('00000000c0000000');
    for (const s of ['0.50', '123456.789', '-0.0001', '10000', '0', '1e20', '-12345678901234567890.0123456789', '0.000000001']) {
      expect(decodeNumeric(encodeNumeric(Numeric.parse(s)))).toBe(Numeric.parse(s).toString());
    }
  });

  it('decodes binary parameters and rejects wrong lengths', () => {
    const b = (hex: string): Buffer => Buffer.from(hex, 'hex');
    expect(decodeParam(b('0000002a'), 1, T.int4)).toBe(42);
    expect(decodeParam(b('000000000000002a'), 1, T.int8)).toBe(42);
    expect(decodeParam(b('7fffffffffffffff'), 1, T.int8)).toBe(9223372036854775807n);
    expect(decodeParam(b('01'), 1, T.bool)).toBe(true);
    expect(decodeParam(b('0000223f'), 1, T.date)).toBe('2024-01-02');
    expect(decodeParam(b('0002b0d782108800'), 1, T.timestamptz)).toBe('2024-01-01 02:00:00+00');
    expect(decodeParam(null, 1, T.int4)).toBe(null);
    expect(() => decodeParam(b('0001'), 1, T.int4)).toThrow(/binary data/);
    expect(() => decodeParam(b('0001'), 2, T.int4)).toThrow(/format code/);
  });
});

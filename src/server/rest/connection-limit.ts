/**
 * --max-connections for the REST listener. Every accepted socket counts (idle keep-alive ones too,
 * since they hold a file descriptor). Over the limit a socket is still read, so its client gets an
 * answer it can act on: 503 with an OpenSearch error body and `Connection: close`. As many such
 * refusals again may be in progress at once, each for a few seconds; beyond that a socket is closed
 * as soon as it is accepted (a flood must not exhaust file descriptors).
 */
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { ServerLogger } from '../logger.js';
import { errorBody } from './errors.js';

/** How long a refused socket may take to send its request before it is closed. */
const REFUSAL_GRACE_MS = 5000;

export function limitConnections(app: FastifyInstance, maxConnections: number, logger: ServerLogger): { readonly open: number } {
  if (!Number.isInteger(maxConnections) || maxConnections < 1) throw new Error('maxConnections must be a positive integer');
  let admitted = 0;
  let refusing = 0;
  const refused = new WeakSet<Socket>();
  app.server.on('connection', (socket: Socket) => {
    const tooMany = admitted >= maxConnections;
    if (tooMany && refusing >= maxConnections) {
      socket.destroy();
      return;
    }
    if (tooMany) {
      refusing++;
      refused.add(socket);
      socket.setTimeout(REFUSAL_GRACE_MS, () => socket.destroy());
      logger.info({ port: 'rest', remoteAddress: socket.remoteAddress, maxConnections }, 'too many connections: refusing a client');
    } else admitted++;
    socket.once('close', () => {
      if (tooMany) refusing--;
      else admitted--;
    });
  });
  // First hook of all, so a refused request costs no authentication or parsing work.
  app.addHook('onRequest', async (req, reply) => {
    if (!refused.has(req.raw.socket)) return;
    const body = errorBody(503, 'TooManyConnectionsException', `sorry, too many clients already. This server accepts at most ${maxConnections} connections at once; retry later.`);
    return reply.status(503).header('connection', 'close').header('retry-after', '1').type('application/json; charset=utf-8').send(body);
  });
  return {
    get open() {
      return admitted + refusing;
    },
  };
}

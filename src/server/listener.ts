/**
 * The gateway's HTTP listeners (vendor, admin, status, sandbox core): Node's limits, answers
 * to the requests Node refuses before the app sees them, and a graceful drain.
 *
 * Limits: maxHeaderSize (431), headersTimeout (drops a slow-header client: 408), requestTimeout,
 * maxConnections (refusing the newcomer, or making room for it: connection-room.ts),
 * keepAliveTimeout (above a load balancer's idle timeout, so the balancer, not the gateway,
 * closes idle connections and never sends on one the gateway is closing).
 *
 * Order on a connection (see connection-turns.ts): pipelined requests are answered one at a
 * time, none runs behind an answer that closed the connection, and a parse error or a CONNECT
 * on later bytes never answers in place of a request still being answered (a CONNECT alone is
 * a 400). A vendor's half-close (FIN, close_notify) still gets the answer in flight.
 *
 * Drain: stop accepting, ask every response not yet started for `Connection: close`, close
 * idle keep-alive connections (and connections that never sent a byte), wait for the requests
 * in flight, cut what is left after the drain time.
 *
 * Reads the `server` config; sets the listener's server options and a per-listener record of
 * open connections and responses in flight.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ServerConfig } from './server.schema';
import type { ListenerTls } from './server-tls';
import { GatewayError } from '../errors/error-catalogue';
import type { Logger } from '../logging/logger';
import { socketProblemResponse } from '../request/error-handler';
import { makeRoomAtCap } from './connection-room';
import { ConnectionTurns } from './connection-turns';

/** The connections and responses a listener has open, and whether it is draining. */
interface ListenerState {
  readonly connections: Set<Socket>;
  readonly inFlight: Set<http.ServerResponse>;
  draining: boolean;
}

const listenerStates = new WeakMap<http.Server, ListenerState>();

export interface ListenOptions {
  readonly logger: Logger;
  /** Told of each request refused before it reached the app (431, 408, 400), by status. */
  readonly onClientError?: (status: number) => void;
  /** Most open connections; past it Node closes a new one at once. */
  readonly maxConnections?: number;
  /** Told of each connection closed for being over `maxConnections`. */
  readonly onConnectionDropped?: () => void;
  /**
   * At `maxConnections`, close the oldest connection not being answered rather than the new one
   * (see connection-room.ts): for a port whose few real callers must get in during a flood.
   */
  readonly makeRoomAtCap?: boolean;
  /** HTTPS: the TLS options, and how a rotation reaches the server (see server-tls.ts). */
  readonly tls?: ListenerTls;
}

/**
 * How often Node checks headersTimeout and requestTimeout (its default, 30 s, would let a
 * slow-header client hold a socket up to 30 s past headersTimeout): a tenth of headersTimeout,
 * between 50 ms and 1 s.
 */
function connectionsCheckingIntervalMs(headersTimeoutMs: number): number {
  return Math.min(1000, Math.max(50, Math.floor(headersTimeoutMs / 10)));
}

/** The answer to a request Node refused before any request object existed; a problem body where the catalogue has a code. */
function clientErrorAnswer(err: NodeJS.ErrnoException): { status: number; response: (requestId: string) => string } {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        response: (id) =>
          socketProblemResponse(new GatewayError('request_header_fields_too_large', 'The request headers are larger than this gateway accepts.'), id),
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return {
        status: 413,
        response: (id) => socketProblemResponse(new GatewayError('payload_too_large', 'The chunk extensions are larger than this gateway accepts.'), id),
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      // A client too slow to send its request (headersTimeout, requestTimeout): what Node itself sends.
      return { status: 408, response: () => 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n' };
    default:
      return { status: 400, response: (id) => socketProblemResponse(new GatewayError('invalid_request', 'The request is not valid HTTP.'), id) };
  }
}

/**
 * A vendor that half-closes (FIN, or TLS close_notify) right after a complete request still
 * gets its answer: Node would end the socket at once, the answer unsent though the request may
 * have reached the core. Over TLS, half-open is switched on per socket once the handshake is
 * done, so an abandoned handshake still closes by itself (and cannot hold a drain).
 */
function keepAnswersPastHalfClose(server: http.Server | https.Server): void {
  (server as http.Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  if (server instanceof https.Server) {
    server.prependListener('secureConnection', (socket: Duplex) => {
      socket.allowHalfOpen = true;
    });
  }
}

export function openListener(
  app: http.RequestListener,
  port: number,
  host: string,
  limits: Pick<ServerConfig, 'maxHeaderSize' | 'requestTimeoutMs' | 'headersTimeoutMs' | 'keepAliveTimeoutMs'>,
  options: ListenOptions,
): Promise<http.Server> {
  const serverOptions: http.ServerOptions = {
    maxHeaderSize: limits.maxHeaderSize,
    requestTimeout: limits.requestTimeoutMs,
    headersTimeout: limits.headersTimeoutMs,
    connectionsCheckingInterval: connectionsCheckingIntervalMs(limits.headersTimeoutMs),
  };
  const state: ListenerState = { connections: new Set(), inFlight: new Set(), draining: false };
  // A request skipped behind an answer that closed its connection never ran: it is not in flight.
  const turns = new ConnectionTurns({ onSkipped: (_req, res) => state.inFlight.delete(res) });
  const inTurn = turns.inTurn(app);
  // The same limits over TLS: an HTTPS listener is the plain one with a secure context.
  const server = options.tls ? https.createServer({ ...serverOptions, ...options.tls.options() }, inTurn) : http.createServer(serverOptions, inTurn);
  if (options.tls && server instanceof https.Server) options.tls.attach(server);
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  keepAnswersPastHalfClose(server);
  server.on('connect', (_req: http.IncomingMessage, socket: Duplex) => {
    // Node destroys a CONNECT's socket when nobody listens, an answer in flight included: that answer goes out first.
    if (turns.answerInProgress(socket)) {
      options.logger.info({ reason: 'CONNECT' }, 'bytes after a request refused: its answer is sent, then the connection closes');
      return;
    }
    if (turns.answering(socket) || !socket.writable) {
      socket.destroy();
      return;
    }
    const requestId = randomUUID();
    options.onClientError?.(400);
    options.logger.info({ requestId, status: 400, reason: 'CONNECT' }, 'request refused before parsing');
    socket.end(socketProblemResponse(new GatewayError('invalid_request', 'CONNECT is not served here.'), requestId), () => socket.destroy());
  });
  if (options.maxConnections !== undefined && options.makeRoomAtCap) {
    makeRoomAtCap(server, { maxConnections: options.maxConnections, onDropped: options.onConnectionDropped });
  } else if (options.maxConnections !== undefined) {
    server.maxConnections = options.maxConnections;
    server.on('drop', () => options.onConnectionDropped?.());
  }
  listenerStates.set(server, state);
  server.on('connection', (socket: Socket) => {
    state.connections.add(socket);
    socket.once('close', () => state.connections.delete(socket));
  });
  // Built once per listener, not per request: 'close' fires once per response.
  function responseClosed(this: http.ServerResponse): void {
    state.inFlight.delete(this);
    // A response whose headers left before the drain kept its connection alive: close it now it is idle.
    if (state.draining) setImmediate(() => server.closeIdleConnections());
  }
  server.prependListener('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    if (state.draining) res.setHeader('Connection', 'close');
    state.inFlight.add(res);
    res.on('close', responseClosed);
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A complete request still being answered (it may be with the core): its answer goes out, then the connection closes.
    if (err.code !== 'ECONNRESET' && socket.writable && turns.answerInProgress(socket)) {
      options.logger.info({ reason: err.code }, 'bytes after a request refused: its answer is sent, then the connection closes');
      return;
    }
    // Raw bytes must not land in the middle of a response already on the wire.
    const answering = turns.answering(socket)?.headersSent === true;
    if (err.code === 'ECONNRESET' || !socket.writable || answering) {
      socket.destroy();
      return;
    }
    const { status, response } = clientErrorAnswer(err);
    const requestId = randomUUID();
    options.onClientError?.(status);
    options.logger.info({ requestId, status, reason: err.code }, 'request refused before parsing');
    socket.end(response(requestId));
  });
  return new Promise((resolve, reject) => {
    const refuse = (err: Error): void => reject(err);
    server.once('error', refuse);
    server.listen(port, host, () => {
      server.off('error', refuse);
      resolve(server);
    });
  });
}

/** Requests the listener is answering now. */
export function inFlightRequests(server: http.Server): number {
  return listenerStates.get(server)?.inFlight.size ?? 0;
}

/**
 * Stops accepting and resolves once the requests in flight are done, or cuts what is left
 * after `drainTimeoutMs`.
 */
export function drainListener(server: http.Server, drainTimeoutMs: number, logger: Logger): Promise<void> {
  const state = listenerStates.get(server);
  if (state) {
    state.draining = true;
    for (const res of state.inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
  }
  return new Promise((resolve) => {
    const deadline = setTimeout(() => {
      logger.warn({ cut: state?.inFlight.size ?? 0, drainTimeoutMs }, 'drain time over: cutting the requests still in flight');
      server.closeAllConnections();
      // Node no longer tracks a socket it handed to 'connect': cut those too.
      for (const socket of state?.connections ?? []) socket.destroy();
    }, drainTimeoutMs);
    server.close(() => {
      clearTimeout(deadline);
      resolve();
    });
    // Node's idle sweep skips connections that never sent a byte (a load balancer's spare ones):
    // left open, they would hold the stop until the drain time is over.
    for (const socket of state?.connections ?? []) if (socket.bytesRead === 0) socket.destroy();
  });
}

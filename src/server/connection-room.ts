/**
 * A connection cap that makes room instead of refusing: at the cap, a new connection closes the
 * oldest one that is not being answered, so clients that hold sockets without finishing a request
 * (slow headers, reconnecting as soon as they are dropped) cannot lock out a caller who sends a
 * whole request at once. Node's own `server.maxConnections` refuses the newcomer instead.
 *
 * Who goes first: the oldest connection that has not yet delivered the headers of its first
 * request; then the one idle longest between requests (keep-alive, or a later request still
 * arriving); never one whose request is being answered. When every connection is being answered
 * the newcomer is closed. Like nginx reusing "reusable" connections (waiting for a first request,
 * or idle keep-alive) when worker_connections run out.
 *
 * Reads the listener's 'connection' and 'request' events; sets per-socket records (gone with the socket).
 */
import type http from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionRoomOptions {
  /** Most open connections. */
  readonly maxConnections: number;
  /** Told of each connection closed to make room, or refused because none could be. */
  readonly onDropped?: () => void;
}

/** Applies the cap to `server`; call before it listens. */
export function makeRoomAtCap(server: http.Server, options: ConnectionRoomOptions): void {
  const open = new Set<Socket>();
  // Insertion order is age: the first entry is the oldest.
  const awaitingFirst = new Set<Socket>();
  const idle = new Set<Socket>();
  const answering = new Map<Socket, number>();
  // Over HTTPS a request's socket is the TLS socket on top of the accepted one: found by its peer.
  const byPeer = new Map<string, Socket>();

  const forget = (socket: Socket): void => {
    open.delete(socket);
    awaitingFirst.delete(socket);
    idle.delete(socket);
    answering.delete(socket);
    if (byPeer.get(peerOf(socket)) === socket) byPeer.delete(peerOf(socket));
  };
  const drop = (socket: Socket): void => {
    forget(socket);
    socket.destroy();
    options.onDropped?.();
  };

  // Prepended: the cap decides before any other 'connection' listener sees the socket.
  server.prependListener('connection', (socket: Socket) => {
    if (open.size >= options.maxConnections) {
      const oldest = first(awaitingFirst) ?? first(idle);
      if (!oldest) {
        // Every connection is being answered: the newcomer goes (Node's later listeners see a destroyed socket and serve nothing).
        drop(socket);
        return;
      }
      drop(oldest);
    }
    open.add(socket);
    awaitingFirst.add(socket);
    byPeer.set(peerOf(socket), socket);
    socket.once('close', () => forget(socket));
  });

  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = open.has(req.socket) ? req.socket : byPeer.get(peerOf(req.socket));
    if (!socket) return;
    awaitingFirst.delete(socket);
    idle.delete(socket);
    answering.set(socket, (answering.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (answering.get(socket) ?? 1) - 1;
      if (left > 0) {
        answering.set(socket, left);
        return;
      }
      answering.delete(socket);
      if (open.has(socket) && !socket.destroyed) idle.add(socket);
    });
  });
}

function peerOf(socket: Socket): string {
  return `${socket.remoteAddress ?? ''}|${socket.remotePort ?? ''}`;
}

function first(sockets: Set<Socket>): Socket | undefined {
  return sockets.values().next().value;
}

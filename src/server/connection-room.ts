/**
 * A connection cap that makes room instead of refusing: at the cap, a new connection closes the
 * least recently active one that is not answering a complete request, so clients that hold
 * sockets without finishing a request (slow headers or a slow body, reconnecting as soon as they
 * are dropped) cannot lock out a caller who sends a whole request at once. Node's own
 * `server.maxConnections` refuses the newcomer instead.
 *
 * Active means: opened, or an answer finished on it. So the first to go is the oldest connection
 * that has not yet delivered a complete request (slow headers, a body still arriving: nothing
 * has acted on it), or one idle longer than that since its last answer; a keep-alive connection
 * an admin just used goes after every older silent one, and a newcomer survives as many
 * arrivals as the cap. One age order, not tiers: a flood whose sockets look idle (a quick
 * unauthenticated request, then a slow second one) would otherwise make every newcomer the
 * first to go. Never closed: a connection whose complete request is being answered; when all
 * are, the newcomer is closed. Like nginx, which at worker_connections closes its "reusable"
 * connections (waiting for a first request, or idle keep-alive) least recently used first.
 *
 * Reads the listener's 'connection' and 'request' events; sets per-socket records (gone with the socket).
 */
import type http from 'node:http';
import type { Socket } from 'node:net';

interface ConnectionRoomOptions {
  /** Most open connections. */
  readonly maxConnections: number;
  /** Told of each connection closed to make room, or refused because none could be. */
  readonly onDropped?: () => void;
}

/** Applies the cap to `server`; call before it listens. */
export function makeRoomAtCap(server: http.Server, options: ConnectionRoomOptions): void {
  // Every open connection; insertion order is last activity, the first entry the least recent.
  const byActivity = new Set<Socket>();
  // The requests each connection has open (its answer not finished).
  const answering = new Map<Socket, Set<http.IncomingMessage>>();
  // Over HTTPS a request's socket is the TLS socket on top of the accepted one: found by its peer.
  const byPeer = new Map<string, Socket>();

  const forget = (socket: Socket): void => {
    byActivity.delete(socket);
    answering.delete(socket);
    if (byPeer.get(peerOf(socket)) === socket) byPeer.delete(peerOf(socket));
  };
  const drop = (socket: Socket): void => {
    forget(socket);
    socket.destroy();
    options.onDropped?.();
  };
  /** Whether a complete request on `socket` is being answered (it may be acting on it). */
  const busy = (socket: Socket): boolean => [...(answering.get(socket) ?? [])].some((req) => req.complete);

  // Prepended: the cap decides before any other 'connection' listener sees the socket.
  server.prependListener('connection', (socket: Socket) => {
    if (byActivity.size >= options.maxConnections) {
      const victim = [...byActivity].find((candidate) => !busy(candidate));
      if (!victim) {
        // Every connection is being answered: the newcomer goes (Node's later listeners see a destroyed socket and serve nothing).
        drop(socket);
        return;
      }
      drop(victim);
    }
    byActivity.add(socket);
    byPeer.set(peerOf(socket), socket);
    socket.once('close', () => forget(socket));
  });

  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = byActivity.has(req.socket) ? req.socket : byPeer.get(peerOf(req.socket));
    if (!socket) return;
    const requests = answering.get(socket) ?? new Set<http.IncomingMessage>();
    answering.set(socket, requests.add(req));
    res.once('close', () => {
      requests.delete(req);
      if (requests.size > 0 || answering.get(socket) !== requests) return;
      answering.delete(socket);
      // An answer finished: the connection is the most recently active.
      if (byActivity.delete(socket)) byActivity.add(socket);
    });
  });
}

function peerOf(socket: Socket): string {
  return `${socket.remoteAddress ?? ''}|${socket.remotePort ?? ''}`;
}

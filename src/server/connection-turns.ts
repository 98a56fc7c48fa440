/**
 * One request at a time per connection, and no answer that hides another.
 *
 * Node parses pipelined requests as their bytes arrive and hands each to the app at once; when
 * an earlier answer then closes the connection (a 401 or 413 marked `Connection: close`, a
 * drain), the later request has already run its steps, may have reached the core, and its
 * answer can never be sent. So a connection's requests take turns: the next one starts only
 * when the answer before it has finished, and not at all when that answer closed the
 * connection. And a parse error on later bytes while a complete request is still being
 * answered writes no answer of its own (the vendor would read it as the answer to that
 * request, which may have been posted): the answer in progress is sent, marked
 * `Connection: close` if it has not started, and then the connection closes.
 *
 * Reads each request's socket; sets per-socket turn records (a WeakMap, gone with the socket).
 */
import type http from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** Most requests one connection may have waiting behind the one being answered; past it the connection closes after that answer. */
const MAX_WAITING = 16;

interface Turn {
  readonly req: http.IncomingMessage;
  readonly res: http.ServerResponse;
}

interface ConnectionTurn {
  current: Turn | null;
  readonly waiting: Array<Turn & { readonly run: () => void }>;
  /** Set once the connection must close after the current answer: nothing waiting will run. */
  closing: boolean;
}

interface ConnectionTurnsOptions {
  /** Told of each request that never ran because the answer before it closed the connection. */
  readonly onSkipped?: (req: http.IncomingMessage, res: http.ServerResponse) => void;
}

export class ConnectionTurns {
  private readonly turns = new WeakMap<Socket | Duplex, ConnectionTurn>();

  constructor(private readonly options: ConnectionTurnsOptions = {}) {}

  /** The app, run for one request of a connection at a time. */
  inTurn(app: http.RequestListener): http.RequestListener {
    return (req, res) => {
      const socket = req.socket;
      let turn = this.turns.get(socket);
      if (!turn) {
        turn = { current: null, waiting: [], closing: false };
        this.turns.set(socket, turn);
      }
      const entry = { req, res, run: () => app(req, res) };
      // Node goes on parsing bytes left behind an answer that closed the connection (an unread body
      // drained after the answer): what it finds there never runs.
      if (turn.closing || socket.destroyed || socket.writableEnded) {
        this.options.onSkipped?.(req, res);
      } else if (turn.current === null) {
        this.start(socket, turn, entry);
      } else {
        turn.waiting.push(entry);
        if (turn.waiting.length > MAX_WAITING) this.closeAfterCurrent(socket, turn);
      }
    };
  }

  /**
   * A parse error on `socket`: true when a complete request on it is still being answered, in
   * which case that answer is sent and the connection closed after it (the caller writes
   * nothing); false when the caller may answer the error itself.
   */
  answerInProgress(socket: Duplex): boolean {
    const turn = this.turns.get(socket);
    const current = turn?.current;
    if (!turn || !current || !current.req.complete) return false;
    this.closeAfterCurrent(socket, turn);
    return true;
  }

  /** Whether a request on `socket` is being answered now (its answer may have begun). */
  answering(socket: Duplex): http.ServerResponse | null {
    return this.turns.get(socket)?.current?.res ?? null;
  }

  private start(socket: Socket, turn: ConnectionTurn, entry: Turn & { readonly run: () => void }): void {
    turn.current = entry;
    // 'close' follows 'finish' and also comes when the answer was cut: either way the turn is over.
    entry.res.once('close', () => this.next(socket, turn));
    entry.run();
  }

  private next(socket: Socket, turn: ConnectionTurn): void {
    turn.current = null;
    // Node ends the socket as the answer finishes when that answer closed the connection.
    const closed = turn.closing || socket.destroyed || socket.writableEnded;
    if (closed) {
      const ending = turn.closing;
      turn.closing = true;
      for (const skipped of turn.waiting.splice(0)) this.options.onSkipped?.(skipped.req, skipped.res);
      if (ending && !socket.destroyed && !socket.writableEnded) socket.end(() => socket.destroy());
      return;
    }
    const following = turn.waiting.shift();
    if (following) this.start(socket, turn, following);
  }

  private closeAfterCurrent(socket: Duplex, turn: ConnectionTurn): void {
    turn.closing = true;
    const res = turn.current?.res;
    if (res && !res.headersSent) res.setHeader('Connection', 'close');
    for (const skipped of turn.waiting.splice(0)) this.options.onSkipped?.(skipped.req, skipped.res);
    if (!res && !socket.destroyed) socket.end();
  }
}

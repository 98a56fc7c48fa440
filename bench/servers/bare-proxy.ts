/**
 * Reference proxy: Node's `http` alone, a keep-alive agent to the upstream, the body streamed
 * both ways. The floor of what any Node proxy costs.
 *
 * Reads the upstream URL from argv; listens on loopback.
 */
import http from 'node:http';
import { announcePort, listenOnLoopback, upstreamUrlArgument } from './ready';

const upstream = new URL(upstreamUrlArgument());
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

const server = http.createServer((req, res) => {
  const outgoing = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  outgoing.on('error', () => {
    res.statusCode = 502;
    res.end();
  });
  req.pipe(outgoing);
});
server.keepAliveTimeout = 60_000;

void listenOnLoopback(server).then(announcePort);

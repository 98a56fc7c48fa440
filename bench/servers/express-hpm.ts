/**
 * Reference proxy: Express 5 + http-proxy-middleware with no policies, set up carefully
 * (x-powered-by and etag off, one middleware, keep-alive agent). What the gateway's policies
 * are compared against.
 *
 * Reads the upstream URL from argv; listens on loopback.
 */
import http from 'node:http';
import express from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { announcePort, listenOnLoopback, upstreamUrlArgument } from './ready';

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.use(createProxyMiddleware({ target: upstreamUrlArgument(), agent: new http.Agent({ keepAlive: true, maxSockets: 256 }) }));

const server = http.createServer(app);
server.keepAliveTimeout = 60_000;
void listenOnLoopback(server).then(announcePort);

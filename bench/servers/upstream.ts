/**
 * The bench's stand-in core: a fixed ~300-byte JSON document for every GET (for GET /accounts, the
 * path the gateway asks for GET /accounts/, a list of 60 of them, about 20 KB, to measure
 * compression) and a fixed receipt for every POST, so the upstream costs the same for every proxy
 * measured. With `--tls`, the same over HTTPS requiring a client certificate.
 *
 * Reads test/fixtures/receipts/deposit.response.json for the receipt; listens on loopback.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { announcePort, listenOnLoopback, tlsFilesArgument } from './ready';

const RESOURCE = Buffer.from(
  JSON.stringify({
    id: 40012,
    accountNumber: '00012345',
    productId: 1,
    productTypeId: 1,
    status: 0,
    memberId: 7001,
    name: 'Instant Access Saver',
    currency: 'GBP',
    balance: 1250.6,
    availableBalance: 1250.6,
    openedOn: '2021-03-14',
    branch: 'Leeds',
    interestRate: 1.25,
    lastTransactionOn: '2024-05-02T10:15:00Z',
    note: 'fixed response for the gateway benchmark',
  }),
);
const LIST = Buffer.from(`[${Array.from({ length: 60 }, (_, i) => RESOURCE.toString('utf8').replace('40012', String(40012 + i))).join(',')}]`);
const RECEIPT = Buffer.from(JSON.stringify(JSON.parse(readFileSync(path.resolve(__dirname, '../../test/fixtures/receipts/deposit.response.json'), 'utf8'))));

const tls = tlsFilesArgument();
const handler: http.RequestListener = (req, res) => {
  // Drain the request body before answering, as a real core reads what it is sent.
  req.resume();
  req.on('end', () => {
    const body = req.method === 'POST' ? RECEIPT : req.url === '/accounts' ? LIST : RESOURCE;
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
};
// With --tls: HTTPS that asks for and verifies the client's certificate (mutual TLS), as a bank's core does.
const server = tls
  ? https.createServer(
      { ca: readFileSync(tls.ca), cert: readFileSync(tls.cert), key: readFileSync(tls.key), requestCert: true, rejectUnauthorized: true },
      handler,
    )
  : http.createServer(handler);
server.keepAliveTimeout = 60_000;

void listenOnLoopback(server).then(announcePort);

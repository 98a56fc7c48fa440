/**
 * A real OpenID provider for the single-sign-on tests (oidc-provider v9 and jose v6), run as a
 * child process by test/support/oidc-provider.ts: both are ES modules, which jest (CommonJS)
 * cannot load.
 *
 * Listens on a loopback port the OS picks (so no port is raced for) and prints one JSON line on
 * stdout, `{"issuer": "http://127.0.0.1:<port>"}`, once it answers. Its own login and consent
 * pages (devInteractions) stay on: the login name typed is the account id (sub), any password.
 * ID tokens carry sub, name, email and groups, signed RS256 with keys generated at start.
 *
 * Reads one environment variable, OIDC_TEST_PROVIDER: JSON `{ clients, accounts, parentPid }`.
 * Control endpoints under /__test__/ (loopback only, test use): PUT account/<sub> (claims),
 * POST rotate-keys, PUT token-fault ({fault: tamper|expire|wrong_issuer|overage|null}).
 * Exits when its stdin closes or its parent process is gone, so a killed test run leaves no
 * provider behind.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import Provider from 'oidc-provider';
import * as jose from 'jose';

const options = JSON.parse(process.env.OIDC_TEST_PROVIDER ?? '{}');
const accounts = new Map(Object.entries(options.accounts ?? {}));
const clients = (options.clients ?? []).map((client) => ({
  grant_types: ['authorization_code'],
  response_types: ['code'],
  token_endpoint_auth_method: 'client_secret_basic',
  ...client,
}));
const FAULTS = new Set(['tamper', 'expire', 'wrong_issuer', 'overage']);
// Cookie keys outlive a key rotation: the provider's own sign-in session must survive it.
const cookieKeys = [randomBytes(32).toString('base64url')];

let signingKey = await newSigningKey();
let tokenFault = null;
let handler = null;

async function newSigningKey() {
  const { privateKey } = await jose.generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  const jwk = await jose.exportJWK(privateKey);
  return { jwk: { ...jwk, kid: randomBytes(8).toString('hex'), alg: 'RS256', use: 'sig' }, privateKey };
}

/**
 * One provider instance for the current key. A rotation builds a new one: oidc-provider takes its
 * keys at construction, and its memory adapter keeps sessions and grants per process, so the
 * browser's sign-in at the provider holds across a rotation.
 */
function buildProvider(issuer) {
  const built = new Provider(issuer, {
    clients,
    jwks: { keys: [signingKey.jwk] },
    cookies: { keys: cookieKeys },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    claims: { openid: ['sub'], profile: ['name', 'groups'], email: ['email', 'email_verified'] },
    // The ID token carries every claim its scopes grant (name, email, groups), as Entra ID's does.
    conformIdTokenClaims: false,
    async findAccount(_ctx, sub) {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: () => ({ sub, ...accounts.get(sub) }) };
    },
  });
  built.use(withoutRemoteFonts);
  built.use(withTokenFault);
  // Its internal errors are the test's to see (stderr), never a crash.
  built.on('server_error', (_ctx, err) => process.stderr.write(`oidc-provider server_error: ${err.stack ?? err}\n`));
  return built;
}

/** The dev pages' stylesheet imports a web font: dropped, so a browser test never leaves loopback. */
async function withoutRemoteFonts(ctx, next) {
  await next();
  if (typeof ctx.body === 'string' && ctx.type?.includes('html')) ctx.body = ctx.body.replace(/@import url\(https?:[^)]*\);/g, '');
}

/** Rewrites the id_token of /token answers while a fault is set. */
async function withTokenFault(ctx, next) {
  await next();
  if (tokenFault === null || ctx.path !== '/token' || ctx.status !== 200 || typeof ctx.body?.id_token !== 'string') return;
  ctx.body = { ...ctx.body, id_token: await faulty(ctx.body.id_token, tokenFault) };
}

async function faulty(idToken, fault) {
  if (fault === 'tamper') {
    const [header, payload, signature] = idToken.split('.');
    // A character in the middle: the last one may only carry padding bits, which some decoders ignore.
    const at = Math.floor(signature.length / 2);
    const changed = signature[at] === 'A' ? 'B' : 'A';
    return [header, payload, signature.slice(0, at) + changed + signature.slice(at + 1)].join('.');
  }
  const claims = jose.decodeJwt(idToken);
  const now = Math.floor(Date.now() / 1000);
  if (fault === 'expire') Object.assign(claims, { iat: now - 20 * 60, exp: now - 10 * 60 });
  if (fault === 'wrong_issuer') claims.iss = 'https://other-issuer.example';
  if (fault === 'overage') {
    delete claims.groups;
    claims._claim_names = { groups: 'src1' };
    claims._claim_sources = { src1: { endpoint: 'https://graph.microsoft.com/v1.0/users/00000000-0000-0000-0000-000000000000/getMemberObjects' } };
  }
  return new jose.SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: signingKey.jwk.kid }).sign(signingKey.privateKey);
}

async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : {};
}

function answer(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function control(req, res, issuer) {
  const route = `${req.method} ${new URL(req.url, issuer).pathname}`;
  const account = /^PUT \/__test__\/account\/([^/]+)$/.exec(route);
  if (account) {
    accounts.set(decodeURIComponent(account[1]), await readJson(req));
    return answer(res, 200, { ok: true });
  }
  if (route === 'POST /__test__/rotate-keys') {
    signingKey = await newSigningKey();
    handler = buildProvider(issuer).callback();
    return answer(res, 200, { kid: signingKey.jwk.kid });
  }
  if (route === 'PUT /__test__/token-fault') {
    const { fault } = await readJson(req);
    if (fault !== null && !FAULTS.has(fault)) return answer(res, 400, { error: `unknown fault ${fault}` });
    tokenFault = fault;
    return answer(res, 200, { fault });
  }
  return answer(res, 404, { error: `no control route ${route}` });
}

const server = http.createServer((req, res) => {
  if (req.url.startsWith('/__test__/')) {
    control(req, res, issuerOf(server)).catch((err) => answer(res, 500, { error: String(err?.message ?? err) }));
    return;
  }
  handler(req, res);
});

function issuerOf(listening) {
  return `http://127.0.0.1:${listening.address().port}`;
}

await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
handler = buildProvider(issuerOf(server)).callback();
process.stdout.write(`${JSON.stringify({ issuer: issuerOf(server) })}\n`);

// Dies with its parent: stdin is the parent's pipe, closed when it exits however it exits.
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
const parentPid = Number(options.parentPid);
if (parentPid > 0) {
  setInterval(() => {
    try {
      process.kill(parentPid, 0);
    } catch {
      process.exit(0);
    }
  }, 1000).unref();
}

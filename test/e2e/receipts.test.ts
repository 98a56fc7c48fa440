/**
 * Receipt posting end to end through the whole gateway: XML and JSON in and out against the
 * sandbox ledger, exact decimals both ways, idempotency under concurrency, overrides, and an
 * outcome left unknown by a core timeout never posted twice.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { startEchoCore, type EchoCore } from '../support/echo-core';
import { SANDBOX_KEYS, startTestGateway, type TestGateway } from '../support/gateway';

const KEY = SANDBOX_KEYS.demo;
const DEPOSIT = '/api/transaction/savings/deposit';

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function post(gateway: TestGateway, path: string, body: string, contentType: string, headers: Record<string, string> = {}): Promise<Answer> {
  // Money movement to a real core needs a key (idempotency.requireKey): a fresh one unless the test sets one.
  const key: Record<string, string> = gateway.config.core.url === null ? {} : { 'Idempotency-Key': randomUUID() };
  const res = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'X-Vendor-Token': KEY, 'content-type': contentType, ...key, ...headers },
    body,
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function getJsonText(gateway: TestGateway, path: string): Promise<string> {
  const res = await fetch(`${gateway.url}${path}`, { headers: { 'X-Vendor-Token': KEY } });
  expect(res.status).toBe(200);
  return res.text();
}

/** The raw decimal text of the account's balance, as the core wrote it. */
async function balanceText(gateway: TestGateway, accountId: number): Promise<string> {
  return /"balance":(-?[\d.]+)/.exec(await getJsonText(gateway, `/accounts/${accountId}`))?.[1] ?? 'missing';
}

async function transactionCount(gateway: TestGateway, accountId: number): Promise<number> {
  return (JSON.parse(await getJsonText(gateway, `/accounts/${accountId}/transactions`)) as unknown[]).length;
}

function addCents(decimal: string, cents: number): string {
  const [units, fraction = '00'] = decimal.split('.');
  const total = BigInt(`${units}${fraction.padEnd(2, '0')}`) + BigInt(cents);
  const text = total.toString().padStart(3, '0');
  return `${text.slice(0, -2)}.${text.slice(-2)}`;
}

const depositXml = (accountId: number, amount: string, ref: string, extra = ''): string =>
  `<?xml version="1.0" encoding="utf-8"?><ReceiptPaymentDto><CUAccountID>${accountId}</CUAccountID><Amount>${amount}</Amount><Notes>Counter 2</Notes><ExternalRefNo>${ref}</ExternalRefNo>${extra}</ReceiptPaymentDto>`;

describe('receipts through the gateway to the sandbox ledger', () => {
  let gateway: TestGateway;
  let accounts: number[];
  let nextAccount = 0;
  const account = (): number => accounts[nextAccount++] as number;

  beforeAll(async () => {
    gateway = await startTestGateway();
    // Open share accounts of product 1: receipt limit 2500.00, daily limit 5000.00.
    const all = JSON.parse(await getJsonText(gateway, '/accounts')) as Array<{ id: number; productId: number; productTypeId: number; status: number }>;
    accounts = all.filter((a) => a.productId === 1 && a.productTypeId === 1 && a.status === 0).map((a) => a.id);
  });
  afterAll(() => gateway.stop());

  it('posts an XML deposit, answers 201 in XML with the receipt, and moves the balance by exactly the amount', async () => {
    const id = account();
    const before = await balanceText(gateway, id);
    const res = await post(gateway, DEPOSIT, depositXml(id, '0.10', 'XML-1'), 'application/xml');
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(res.text).toMatch(/^<\?xml[^>]*\?>\s*<ReceiptPaymentDto[ >]/);
    expect(res.text).toContain('<Amount>0.10</Amount>');
    expect(res.text).toMatch(/<ReceiptNo>\d+<\/ReceiptNo>/);
    expect(res.text).toContain('<HasOverride>false</HasOverride>');
    expect(await balanceText(gateway, id)).toBe(addCents(before, 10));
  });

  it('posts to the account number when CUAccountID is 0, as a .NET client sends an unset int', async () => {
    const id = account();
    const { accountNumber } = JSON.parse(await getJsonText(gateway, `/accounts/${id}`)) as { accountNumber: string };
    const before = await balanceText(gateway, id);
    const res = await post(
      gateway,
      DEPOSIT,
      `<ReceiptPaymentDto><AccountNumber>${accountNumber}</AccountNumber><Amount>0.20</Amount><CUAccountID>0</CUAccountID><ExternalRefNo>NET-0</ExternalRefNo></ReceiptPaymentDto>`,
      'application/xml',
    );
    expect(res.status).toBe(201);
    expect(await balanceText(gateway, id)).toBe(addCents(before, 20));
  });

  it('reads DataContractSerializer nulls (i:nil) as absent, never as empty strings', async () => {
    const id = account();
    const before = await balanceText(gateway, id);
    const nil = (ref: string): string =>
      `<ReceiptPaymentDto xmlns="http://schemas.datacontract.org/2004/07/CoreBanking" xmlns:i="http://www.w3.org/2001/XMLSchema-instance">` +
      `<AccountNumber i:nil="true"/><Amount>0.30</Amount><CUAccountID>${id}</CUAccountID><ExternalRefNo i:nil="true"/><Notes i:nil="true"/>${ref}</ReceiptPaymentDto>`;
    // Without i:nil read as null, the empty account number would be refused and the second
    // posting answered 409 "already posted" for the empty ExternalRefNo.
    const first = await post(gateway, DEPOSIT, nil(''), 'application/xml');
    const second = await post(gateway, DEPOSIT, nil(''), 'application/xml');
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(await balanceText(gateway, id)).toBe(addCents(before, 60));
  });

  it('answers FingerPrintURL as null when the core leaves it unset: i:nil in XML, null in JSON', async () => {
    const payment = (ref: string): string =>
      `<ReceiptSavingsDepositWebDto><CUAccountID>${account()}</CUAccountID><Amount>0.10</Amount><ExternalRefNo>${ref}</ExternalRefNo></ReceiptSavingsDepositWebDto>`;
    const xml = await post(gateway, '/api/transaction/savings/payment', payment('NIL-OUT'), 'application/xml');
    expect(xml.status).toBe(201);
    expect(xml.text).toMatch(/<ReceiptSavingsDepositWebDto xmlns:i="http:\/\/www.w3.org\/2001\/XMLSchema-instance">/);
    expect(xml.text).toContain('<FingerPrintURL i:nil="true"/>');
    const json = await post(gateway, '/api/transaction/savings/payment', payment('NIL-OUT-2'), 'application/xml', { Accept: 'application/json' });
    expect(JSON.parse(json.text)).toMatchObject({ fingerPrintURL: null });
  });

  it('answers in JSON when the XML request accepts JSON, and in XML for text/xml', async () => {
    const asJson = await post(gateway, DEPOSIT, depositXml(account(), '12.34', 'XML-2'), 'text/xml', { Accept: 'application/json' });
    expect(asJson.status).toBe(201);
    expect(asJson.headers.get('content-type')).toMatch(/^application\/json/);
    expect(asJson.text).toContain('"amount":12.34');
    const asTextXml = await post(gateway, DEPOSIT, depositXml(account(), '1.00', 'XML-3'), 'text/xml');
    expect(asTextXml.headers.get('content-type')).toMatch(/^text\/xml/);
    expect(asTextXml.text).toContain('<Amount>1.00</Amount>');
  });

  it('adjusts an earlier receipt sent as a .NET client writes it (SavingsAdjustment, no Amount): the receipt is taken back, nothing new is credited', async () => {
    const id = account();
    const before = await balanceText(gateway, id);
    const posted = await post(gateway, DEPOSIT, depositXml(id, '7.25', 'ADJ-E2E'), 'application/xml');
    const receiptNo = /<ReceiptNo>(\d+)<\/ReceiptNo>/.exec(posted.text)?.[1];
    expect(receiptNo).toBeDefined();
    const adjustment = `<ReceiptSavingsDepositWebDto xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><Amount i:nil="true"/><CUAccountID>${id}</CUAccountID><ExternalRefNo>ADJ-E2E-1</ExternalRefNo><Notes>keyed twice</Notes><ReceiptNo>${receiptNo}</ReceiptNo><ReceiptType>SavingsAdjustment</ReceiptType></ReceiptSavingsDepositWebDto>`;
    const res = await post(gateway, '/api/transaction/savings/payment', adjustment, 'application/xml');
    expect(res.status).toBe(201);
    expect(res.text).toContain('<DebitAmount>7.25</DebitAmount>');
    expect(await balanceText(gateway, id)).toBe(before);
  });

  it('answers an XML receipt in the namespace the request used, its members in DataContract (ordinal) order', async () => {
    const ns = 'http://schemas.datacontract.org/2004/07/CoreBanking.Dto';
    const res = await post(
      gateway,
      DEPOSIT,
      `<ReceiptPaymentDto xmlns="${ns}" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><Amount>0.30</Amount><CUAccountID>${account()}</CUAccountID><ExternalRefNo>NS-1</ExternalRefNo></ReceiptPaymentDto>`,
      'application/xml',
    );
    expect(res.status).toBe(201);
    expect(res.text).toMatch(new RegExp(`^<\\?xml[^>]*\\?><ReceiptPaymentDto xmlns="${ns.replace(/[.]/g, '\\.')}"`));
    const members = [...res.text.matchAll(/<([A-Za-z]+)[ />]/g)].map((m) => m[1]).slice(1);
    expect(members).toEqual([...members].sort());
  });

  it('posts a JSON payment and keeps the decimal text as written', async () => {
    const id = account();
    const before = await balanceText(gateway, id);
    const res = await post(gateway, '/api/transaction/savings/payment', `{"cuAccountID":${id},"amount":100.50,"externalRefNo":"JSON-1"}`, 'application/json');
    expect(res.status).toBe(201);
    expect(res.text).toContain('"amount":100.50');
    expect(await balanceText(gateway, id)).toBe(addCents(before, 10050));
  });

  it('refuses form-urlencoded with 415 naming the accepted types, and posts nothing', async () => {
    const id = account();
    const count = await transactionCount(gateway, id);
    const res = await post(gateway, DEPOSIT, `cuAccountID=${id}&amount=5`, 'application/x-www-form-urlencoded');
    expect(res.status).toBe(415);
    expect(JSON.parse(res.text)).toMatchObject({ code: 'unsupported_media_type' });
    expect(res.text).toContain('application/xml');
    expect(await transactionCount(gateway, id)).toBe(count);
  });

  it('answers invalid XML input as the receipt itself: ErrorMessage naming every bad field, what was read, the problem as its last child', async () => {
    const ns = 'http://schemas.datacontract.org/2004/07/CoreBanking.Dto';
    const res = await post(
      gateway,
      DEPOSIT,
      `<ReceiptPaymentDto xmlns="${ns}"><Amount>-5</Amount><Notes>till 3</Notes><OverrideUserName>x</OverrideUserName></ReceiptPaymentDto>`,
      'application/xml',
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(res.text).toMatch(new RegExp(`^<\\?xml[^>]*\\?><ReceiptPaymentDto xmlns="${ns.replace(/[.]/g, '\\.')}"`));
    const errorMessage = /<ErrorMessage>([^<]*)<\/ErrorMessage>/.exec(res.text)?.[1] ?? '';
    for (const field of ['Amount', 'CUAccountID', 'OverridePassword']) expect(errorMessage).toContain(field);
    expect(res.text).toContain('<HasOverride>false</HasOverride>');
    expect(res.text).toContain('<Notes>till 3</Notes>');
    expect(res.text).toMatch(
      /<problem xmlns="urn:ietf:rfc:7807">.*<code>invalid_request<\/code><requestId>[^<]+<\/requestId>.*<\/problem><\/ReceiptPaymentDto>$/,
    );
  });

  it('answers invalid JSON input as the receipt with errorMessage and the problem members beside it, never echoing a password', async () => {
    const res = await post(
      gateway,
      '/api/transaction/savings/payment',
      '{"amount":"ten","notes":"n","overrideUserName":"x","overridePassword":"Secret-1","status":"Active"}',
      'application/json',
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = JSON.parse(res.text) as Record<string, unknown>;
    expect(body).toMatchObject({ notes: 'n', overrideUserName: 'x', hasOverride: false, code: 'invalid_request', status: 400, errors: expect.any(Array) });
    expect(body.errorMessage).toEqual(expect.stringContaining('amount'));
    expect(body.requestId).toEqual(res.headers.get('x-request-id'));
    expect(res.text).not.toContain('Secret-1');
  });

  it('names each unknown JSON field in the 400 receipt instead of dropping it, and posts nothing', async () => {
    const before = await getJsonText(gateway, '/accounts/50001');
    const res = await post(gateway, DEPOSIT, '{"cuAccountID":50001,"Amount":1.00,"externalRefNo":"UNKNOWN-1","amout":2,"payfees":true}', 'application/json');
    expect(res.status).toBe(400);
    const body = JSON.parse(res.text) as { errors: unknown[]; errorMessage: string };
    expect(body.errors).toEqual([
      { field: 'amout', message: 'unknown field' },
      { field: 'payfees', message: 'unknown field' },
    ]);
    expect(body.errorMessage).toContain('amout');
    expect(await getJsonText(gateway, '/accounts/50001')).toBe(before);
  });

  it('answers a body that is not XML at all as a receipt too, and a mistake the core finds in the same shape (errorMessage)', async () => {
    const malformed = await post(gateway, DEPOSIT, '<ReceiptPaymentDto><Amount>1</Amount>', 'application/xml');
    expect(malformed.status).toBe(400);
    expect(malformed.text).toMatch(
      /<ReceiptPaymentDto><ErrorMessage>The XML body is not well-formed[^<]*<\/ErrorMessage><HasOverride>false<\/HasOverride><problem /,
    );
    const byGateway = await post(gateway, DEPOSIT, '{"amount":1.00,"accountNumber":"  "}', 'application/json');
    const byCore = await post(gateway, DEPOSIT, '{"amount":1.00,"accountNumber":"NO-SUCH-ACCOUNT","externalRefNo":"CORE-400"}', 'application/json');
    expect([byGateway.status, byCore.status]).toEqual([400, 400]);
    for (const answer of [byGateway, byCore])
      expect(JSON.parse(answer.text)).toMatchObject({ errorMessage: expect.any(String), hasOverride: false, amount: 1 });
  });

  it('asks for an override above the receipt limit, and posts once with supervisor credentials', async () => {
    const id = account();
    const before = await balanceText(gateway, id);
    const refused = await post(gateway, DEPOSIT, depositXml(id, '3000.00', 'OVR-1'), 'application/xml');
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('<HasOverride>true</HasOverride>');
    expect(refused.text).toMatch(/<TransactionOverrides>\s*<TransactionOverrideDto>/);
    expect(await balanceText(gateway, id)).toBe(before);

    const credentials = '<OverrideUserName>supervisor</OverrideUserName><OverridePassword>Sandbox-Override-2025</OverridePassword>';
    const authorised = await post(gateway, DEPOSIT, depositXml(id, '3000.00', 'OVR-2', credentials), 'application/xml');
    expect(authorised.status).toBe(201);
    expect(authorised.text).not.toContain('Sandbox-Override-2025');
    expect(await balanceText(gateway, id)).toBe(addCents(before, 300000));
  });

  it('posts 50 concurrent identical requests with one key exactly once; the rest are 409 or replays', async () => {
    const id = account();
    const before = await balanceText(gateway, id);
    const count = await transactionCount(gateway, id);
    const body = depositXml(id, '7.00', 'CONC-1');
    const answers = await Promise.all(Array.from({ length: 50 }, () => post(gateway, DEPOSIT, body, 'application/xml', { 'Idempotency-Key': 'conc-key-1' })));
    const created = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
    const replays = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === 'true');
    const inProgress = answers.filter((a) => a.status === 409);
    expect(created).toHaveLength(1);
    expect(replays.length + inProgress.length).toBe(49);
    for (const r of inProgress) expect(r.text).toContain('<code>idempotency_in_progress</code>');
    for (const r of replays) expect(r.text).toBe(created[0]?.text);
    expect(await transactionCount(gateway, id)).toBe(count + 1);
    expect(await balanceText(gateway, id)).toBe(addCents(before, 700));

    const later = await post(gateway, DEPOSIT, body, 'application/xml', { 'Idempotency-Key': 'conc-key-1' });
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBe('true');
    expect(later.text).toBe(created[0]?.text);

    const other = await post(gateway, DEPOSIT, depositXml(id, '8.00', 'CONC-1'), 'application/xml', { 'Idempotency-Key': 'conc-key-1' });
    expect(other.status).toBe(422);
    expect(other.text).toContain('idempotency_key_reused');
    expect(await transactionCount(gateway, id)).toBe(count + 1);
  });

  it('uses ExternalRefNo as the key when no Idempotency-Key is sent', async () => {
    const id = account();
    const count = await transactionCount(gateway, id);
    const body = `{"cuAccountID":${id},"amount":2.00,"externalRefNo":"REF-ONCE"}`;
    expect((await post(gateway, DEPOSIT, body, 'application/json')).status).toBe(201);
    const again = await post(gateway, DEPOSIT, body, 'application/json');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await transactionCount(gateway, id)).toBe(count + 1);
  });
});

describe('receipts answered in XML to a request that named no namespace', () => {
  it('are written in xml.responseNamespace', async () => {
    const ns = 'http://schemas.datacontract.org/2004/07/Bank.Core';
    const gateway = await startTestGateway({ xml: { responseNamespace: ns } });
    try {
      const all = JSON.parse(await getJsonText(gateway, '/accounts')) as Array<{ id: number; productId: number; productTypeId: number; status: number }>;
      const id = all.find((a) => a.productId === 1 && a.productTypeId === 1 && a.status === 0)?.id as number;
      const res = await post(gateway, DEPOSIT, `{"cuAccountID":${id},"amount":0.40,"externalRefNo":"NS-DEFAULT"}`, 'application/json', {
        Accept: 'application/xml',
      });
      expect(res.status).toBe(201);
      expect(res.text).toContain(`<ReceiptPaymentDto xmlns="${ns}">`);
    } finally {
      await gateway.stop();
    }
  });
});

describe('receipts against a recording core', () => {
  let core: EchoCore;
  let gateway: TestGateway;
  let delayMs = 0;
  let failing = false;

  beforeAll(async () => {
    // The core echoes the receipt it received with a receipt number, as written: decimals and
    // all (a real core might echo an override password too).
    core = await startEchoCore((req, res: http.ServerResponse) => {
      setTimeout(() => {
        if (failing) {
          res.writeHead(500, { 'content-type': 'text/html' });
          res.end('<html>NullReferenceException at Core.Receipts.Post() on core-db-01.bank.internal</html>');
          return;
        }
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(req.body.replace(/}$/, ',"receiptNo":9001,"hasOverride":false}'));
      }, delayMs);
    });
    gateway = await startTestGateway({ core: { url: core.url, breakers: { receipts: { timeoutMs: 300 } } } });
  });
  afterAll(async () => {
    await gateway.stop();
    await core.close();
  });
  beforeEach(() => {
    core.requests.length = 0;
    delayMs = 0;
    failing = false;
  });

  it('refuses money movement with neither Idempotency-Key nor externalRefNo (400 naming the header), even sent ten times at once: nothing posts', async () => {
    const unkeyed = Array.from({ length: 10 }, () =>
      fetch(`${gateway.url}${DEPOSIT}`, {
        method: 'POST',
        headers: { 'X-Vendor-Token': KEY, 'content-type': 'application/json' },
        body: '{"cuAccountID":5,"amount":1.00}',
      }),
    );
    const answers = await Promise.all(
      unkeyed.map(async (pending) => ({ status: (await pending).status, body: (await (await pending).json()) as { errors: unknown } })),
    );
    expect(answers.every((a) => a.status === 400)).toBe(true);
    expect(answers[0]?.body.errors).toEqual([{ field: 'Idempotency-Key', message: 'required (or an externalRefNo in the body)' }]);
    expect(core.requests).toHaveLength(0);
    const withReference = await fetch(`${gateway.url}${DEPOSIT}`, {
      method: 'POST',
      headers: { 'X-Vendor-Token': KEY, 'content-type': 'application/json' },
      body: '{"cuAccountID":5,"amount":1.00,"externalRefNo":"REF-10"}',
    });
    expect(withReference.status).toBe(201);
  });

  it('answers a core 500 with 502 bad_gateway, withholding its body, and never re-sends the key', async () => {
    failing = true;
    const body = '{"cuAccountID":5,"amount":10.00}';
    const first = await post(gateway, DEPOSIT, body, 'application/json', { 'Idempotency-Key': 'boom-1' });
    expect(first.status).toBe(502);
    expect(JSON.parse(first.text).code).toBe('bad_gateway');
    expect(first.text).not.toMatch(/NullReference|core-db-01/);
    failing = false;
    const retry = await post(gateway, DEPOSIT, body, 'application/json', { 'Idempotency-Key': 'boom-1' });
    expect(JSON.parse(retry.text).code).toBe('outcome_unknown');
    expect(core.requests).toHaveLength(1);
  });

  it('never sends an override password or TempToken the core echoes back to the vendor', async () => {
    const res = await post(
      gateway,
      DEPOSIT,
      '<ReceiptPaymentDto><CUAccountID>5</CUAccountID><Amount>1.00</Amount><OverrideUserName>sup</OverrideUserName><OverridePassword>pw-never-echo</OverridePassword></ReceiptPaymentDto>',
      'application/xml',
    );
    expect(res.status).toBe(201);
    expect(core.requests[0]?.body).toContain('pw-never-echo');
    expect(res.text).not.toContain('pw-never-echo');
    expect(res.text).toContain('<OverrideUserName>sup</OverrideUserName>');
  });

  it('carries 28 significant digits and leading zeros from XML to the core and back without rounding', async () => {
    const xml = '<ReceiptPaymentDto><AccountNumber>00012345</AccountNumber><Amount>1234567890123456789012.3456</Amount></ReceiptPaymentDto>';
    const res = await post(gateway, DEPOSIT, xml, 'application/xml');
    expect(res.status).toBe(201);
    expect(core.requests[0]?.body).toContain('"accountNumber":"00012345"');
    expect(core.requests[0]?.body).toContain('"amount":1234567890123456789012.3456');
    expect(res.text).toContain('<Amount>1234567890123456789012.3456</Amount>');
    expect(res.text).toContain('<AccountNumber>00012345</AccountNumber>');
  });

  it('sends XML 0.10 to the core as JSON 0.10', async () => {
    await post(gateway, DEPOSIT, '<ReceiptPaymentDto><CUAccountID>5</CUAccountID><Amount>0.10</Amount></ReceiptPaymentDto>', 'text/xml');
    expect(core.requests[0]?.body).toMatch(/"amount":0\.10[,}]/);
  });

  it('answers 504 on a core timeout, then 409 outcome_unknown for the key, and never sends the receipt twice', async () => {
    delayMs = 1000;
    const body = '{"cuAccountID":5,"amount":10.00}';
    const first = await post(gateway, DEPOSIT, body, 'application/json', { 'Idempotency-Key': 'slow-1' });
    expect(first.status).toBe(504);
    expect(JSON.parse(first.text).code).toBe('core_timeout');
    const retry = await post(gateway, DEPOSIT, body, 'application/json', { 'Idempotency-Key': 'slow-1' });
    expect(retry.status).toBe(409);
    expect(JSON.parse(retry.text).code).toBe('outcome_unknown');
    await new Promise((r) => setTimeout(r, 1100));
    expect(core.requests).toHaveLength(1);
  });

  it('never passes the vendor token to the core on a receipt', async () => {
    const res = await post(gateway, DEPOSIT, '{"cuAccountID":5,"amount":1.00,"overrideUserName":"sup","overridePassword":"pw-never-echo"}', 'application/json');
    expect(res.status).toBe(201);
    expect(core.requests[0]?.headers['x-vendor-token']).toBeUndefined();
  });
});

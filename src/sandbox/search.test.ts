import request from 'supertest';
import { createSandboxApp } from './app';
import { createSandboxData } from './data';

const data = createSandboxData(42);
const app = createSandboxApp({ data });

interface Envelope<T = Record<string, unknown>> {
  pageNumber: number;
  pageSize: number;
  totalPages: number;
  totalItems: number;
  nextUrl: string | null;
  previousUrl: string | null;
  items: T[];
}

const pathOf = (url: string): string => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
};

function expectOrdered<T>(values: readonly T[], compare: (a: T, b: T) => number): void {
  const firstOutOfOrder = values.findIndex((value, i) => i > 0 && compare(values[i - 1] as T, value) > 0);
  expect(firstOutOfOrder).toBe(-1);
}

describe('SEARCH sorting', () => {
  it('sorts decimals numerically, ascending by default and descending on request', async () => {
    const up = (await request(app).get('/accounts?sort=balance').expect(200)).body as Array<{ balance: number }>;
    expect(up).toHaveLength(data.accounts.size);
    expectOrdered(
      up.map((a) => a.balance),
      (a, b) => a - b,
    );
    const down = (await request(app).get('/accounts?sort=balance&ascending=false').expect(200)).body as Array<{ balance: number }>;
    expectOrdered(
      down.map((a) => a.balance),
      (a, b) => b - a,
    );
  });

  it('matches the sort field and parameter names case-insensitively', async () => {
    const body = (await request(app).get('/accounts?SORT=BALANCE&Ascending=False').expect(200)).body as Array<{ balance: number }>;
    expectOrdered(
      body.map((a) => a.balance),
      (a, b) => b - a,
    );
  });

  it('sorts strings alphabetically and datetimes chronologically', async () => {
    const collator = new Intl.Collator('en-GB');
    const customers = (await request(app).get('/customers?sort=Name').expect(200)).body as Array<{ Name: string }>;
    expectOrdered(
      customers.map((c) => c.Name),
      (a, b) => collator.compare(a, b),
    );
    const transactions = (await request(app).get('/transactions?sort=ValueDate&ascending=false').expect(200)).body as Array<{ ValueDate: string }>;
    expectOrdered(
      transactions.map((t) => Date.parse(`${t.ValueDate}Z`)),
      (a, b) => b - a,
    );
  });

  it('is stable: rows with equal keys keep their id order, in both directions', async () => {
    for (const ascending of [true, false]) {
      const body = (await request(app).get(`/accounts?sort=status&ascending=${ascending}`).expect(200)).body as Array<{ id: number; status: number }>;
      const unstable = body.filter((b, i) => i > 0 && body[i - 1]!.status === b.status && body[i - 1]!.id > b.id);
      expect(unstable).toEqual([]);
    }
  });

  it('puts absent optional values first when ascending', async () => {
    const body = (await request(app).get('/customers?sort=Telephone3').expect(200)).body as Array<{ Telephone3?: number }>;
    const firstPresent = body.findIndex((c) => c.Telephone3 !== undefined);
    expect(firstPresent).toBeGreaterThan(0);
    expect(body.slice(firstPresent).every((c) => c.Telephone3 !== undefined)).toBe(true);
  });
});

describe('SEARCH paging', () => {
  it('answers paged=true with the envelope, default page size 20', async () => {
    const page = (await request(app).get('/customers?paged=true').expect(200)).body as Envelope;
    expect(page).toMatchObject({ pageNumber: 1, pageSize: 20, totalItems: data.customers.size, previousUrl: null });
    expect(page.totalPages).toBe(Math.ceil(data.customers.size / 20));
    expect(page.items).toHaveLength(20);
  });

  it('follows nextUrl to the last page, collecting every record exactly once, and previousUrl back', async () => {
    let url: string | null = '/accounts?paged=true&pageSize=37&sort=balance';
    const seen: number[] = [];
    let last: Envelope<{ id: number }> | undefined;
    while (url) {
      last = (await request(app).get(url).expect(200)).body as Envelope<{ id: number }>;
      seen.push(...last.items.map((a) => a.id));
      url = last.nextUrl ? pathOf(last.nextUrl) : null;
    }
    expect(last?.pageNumber).toBe(last?.totalPages);
    expect(seen).toHaveLength(last?.totalItems ?? -1);
    expect(new Set(seen).size).toBe(data.accounts.size);

    const previous = (
      await request(app)
        .get(pathOf(last?.previousUrl ?? ''))
        .expect(200)
    ).body as Envelope;
    expect(previous.pageNumber).toBe((last?.pageNumber ?? 0) - 1);
  });

  it('keeps the other query parameters in the links and changes only page', async () => {
    const page = (await request(app).get('/accounts?sort=balance&paged=true&page=2&pageSize=5&ascending=false').expect(200)).body as Envelope;
    const next = new URL(page.nextUrl ?? '');
    expect([...next.searchParams]).toEqual([
      ['sort', 'balance'],
      ['paged', 'true'],
      ['page', '3'],
      ['pageSize', '5'],
      ['ascending', 'false'],
    ]);
    expect(new URL(page.previousUrl ?? '').searchParams.get('page')).toBe('1');
  });

  it('builds links from X-Forwarded-Proto and X-Forwarded-Host when the gateway sets them', async () => {
    const page = (await request(app).get('/banks').set('X-Forwarded-Proto', 'https').set('X-Forwarded-Host', 'api.example.com, internal:8080').expect(200))
      .body as Envelope;
    expect(page.nextUrl).toBe('https://api.example.com/banks?page=2');
  });

  it('builds links from the request itself without forwarding headers, and ignores a malformed forwarded host', async () => {
    const direct = await request(app).get('/banks').set('Host', 'sandbox.local:8090').expect(200);
    expect((direct.body as Envelope).nextUrl).toBe('http://sandbox.local:8090/banks?page=2');
    const spoofed = await request(app).get('/banks').set('Host', 'sandbox.local:8090').set('X-Forwarded-Host', 'evil.com/path?').expect(200);
    expect((spoofed.body as Envelope).nextUrl).toBe('http://sandbox.local:8090/banks?page=2');
  });

  it('answers a page past the end with no items and no next link', async () => {
    const page = (await request(app).get('/genders?paged=true&page=9').expect(200)).body as Envelope;
    expect(page.items).toEqual([]);
    expect(page.nextUrl).toBeNull();
    expect(page.totalPages).toBe(1);
  });

  it('always answers banks with the envelope, over more than one page', async () => {
    const page = (await request(app).get('/banks/').expect(200)).body as Envelope;
    expect(page.totalItems).toBe(data.banks.size);
    expect(page.totalPages).toBeGreaterThan(1);
    const all = (await request(app).get('/banks?pageSize=100&sort=name&ascending=false').expect(200)).body as Envelope<{ name: string }>;
    expect(all.items).toHaveLength(data.banks.size);
    expect(all.nextUrl).toBeNull();
  });

  it('honours the configured default and maximum page sizes', async () => {
    const small = createSandboxApp({ data, defaultPageSize: 5, maxPageSize: 10 });
    expect(((await request(small).get('/banks').expect(200)).body as Envelope).pageSize).toBe(5);
    await request(small).get('/banks?pageSize=11').expect(400);
    expect(() => createSandboxApp({ data, defaultPageSize: 50, maxPageSize: 10 })).toThrow(RangeError);
  });
});

describe('SEARCH parameter errors', () => {
  it.each([
    ['sort=nosuchfield', 'sort'],
    ['ascending=yes', 'ascending'],
    ['paged=1', 'paged'],
    ['paged=true&page=0', 'page'],
    ['paged=true&page=-1', 'page'],
    ['paged=true&page=two', 'page'],
    ['paged=true&pageSize=0', 'pageSize'],
    ['paged=true&pageSize=101', 'pageSize'],
    ['paged=true&pageSize=2.5', 'pageSize'],
    ['sort=balance&sort=id', 'sort'],
  ])('answers %s with a 400 naming %s', async (query, parameter) => {
    const response = await request(app).get(`/accounts?${query}`).expect(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ status: 400, errors: [expect.objectContaining({ field: parameter })] });
    expect((response.body as { detail: string }).detail).toContain(parameter);
  });

  it('names every bad parameter at once', async () => {
    const response = await request(app).get('/banks?page=0&pageSize=1000&ascending=maybe').expect(400);
    const fields = (response.body as { errors: Array<{ field: string }> }).errors.map((e) => e.field).sort();
    expect(fields).toEqual(['ascending', 'page', 'pageSize']);
  });
});

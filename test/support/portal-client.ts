/**
 * Driving the vendor portal of a test gateway as its browser page does: the bank's admin API
 * (the test admin token) invites portal users and issues keys; a PortalSession holds one portal
 * cookie and presents it, with the portal's write header, to whichever instance a test names,
 * so one cookie can be tried on every instance sharing a Redis.
 *
 * Reads nothing but the answers; keeps the cookie a sign-in set.
 */
import { TEST_ADMIN_TOKEN } from './config';

export const PORTAL_UI_HEADERS = { 'x-requested-by': 'cbg-portal-ui', 'content-type': 'application/json' } as const;
const ADMIN_HEADERS = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' } as const;

/** The ports of one gateway instance a portal test talks to. */
export interface PortalInstance {
  readonly vendorPort: number;
  readonly adminPort: number;
}

export async function adminCall(instance: PortalInstance, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`http://127.0.0.1:${instance.adminPort}${path}`, {
    method,
    headers: ADMIN_HEADERS,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function expectStatus(answer: Response, status: number, what: string): Promise<unknown> {
  const text = await answer.text();
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

export interface InvitedPortalUser {
  readonly id: string;
  readonly token: string;
}

export async function invitePortalUser(instance: PortalInstance, vendorId: string): Promise<InvitedPortalUser> {
  const email = `dev-${Math.random().toString(36).slice(2)}@example.com`;
  const answer = await adminCall(instance, 'POST', `/v1/vendors/${vendorId}/portal-users`, { email, name: 'Dana Developer' });
  return (await expectStatus(answer, 201, `inviting a portal user of ${vendorId}`)) as InvitedPortalUser;
}

export async function issueVendorKey(instance: PortalInstance, vendorId: string, userId: string): Promise<{ id: string; secret: string; prefix: string }> {
  const answer = await adminCall(instance, 'POST', `/v1/vendors/${vendorId}/keys`, { userId });
  return (await expectStatus(answer, 201, `issuing a key of ${vendorId}`)) as { id: string; secret: string; prefix: string };
}

/** A vendor API call with a key; the answer's body is read, so the connection is free again. */
export async function vendorCall(instance: PortalInstance, key: string, path = '/accounts/'): Promise<Response> {
  const answer = await fetch(`http://127.0.0.1:${instance.vendorPort}${path}`, { headers: { 'x-vendor-token': key } });
  await answer.arrayBuffer();
  return answer;
}

/** One browser's portal cookie, presented to any instance. */
export class PortalSession {
  cookie: string | null = null;

  /** The cookie's value alone (what follows `cbg_portal_session=`). */
  get value(): string {
    if (!this.cookie) throw new Error('not signed in');
    return this.cookie.slice(this.cookie.indexOf('=') + 1);
  }

  async call(instance: PortalInstance, method: string, path: string, body?: unknown, headers: Record<string, string> = PORTAL_UI_HEADERS): Promise<Response> {
    const answer = await fetch(`http://127.0.0.1:${instance.vendorPort}${path}`, {
      method,
      redirect: 'manual',
      headers: { ...headers, ...(this.cookie ? { cookie: this.cookie } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const set = answer.headers.get('set-cookie');
    if (set) {
      const value = /^cbg_portal_session=([^;]*)/.exec(set)?.[1] ?? '';
      this.cookie = value ? `cbg_portal_session=${value}` : null;
    }
    return answer;
  }

  async json<T>(instance: PortalInstance, path: string): Promise<T> {
    return (await expectStatus(await this.call(instance, 'GET', path), 200, `GET ${path}`)) as T;
  }

  static async signIn(instance: PortalInstance, token: string): Promise<PortalSession> {
    const session = new PortalSession();
    await expectStatus(await session.call(instance, 'POST', '/portal/api/session', { token }), 200, 'signing in to the portal');
    return session;
  }
}

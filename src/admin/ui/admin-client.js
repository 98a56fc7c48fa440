// @ts-check
// The admin console's side of the admin API: the kit's client bound to `/v1` and the console's
// anti-forgery header (`X-Requested-By: cbg-admin-ui`), its session at `/ui/session` (who is
// signed in, and which ways to sign in the gateway offers), and writes that say when four eyes
// filed them for approval instead of applying them (202). Reads the answers; sets the notice it
// is given.
import { apiClient } from '../../ui-kit/api.js';
import { tell } from '../../ui-kit/forms.js';
import { session, writeHeaders } from '../../ui-kit/session.js';

/** @typedef {'viewer' | 'operator' | 'approver' | 'owner'} Role */
/**
 * @typedef {object} Admin who is signed in
 * @property {string} id `oidc:<sub>` for a single-sign-on admin
 * @property {string} name
 * @property {Role} role
 * @property {string} [email] a single-sign-on admin's, from the identity provider
 * @property {'oidc' | 'token'} [source] how they signed in: single sign-on, or an admin token
 */
/**
 * @typedef {object} SignInMethods what the sign-in page offers
 * @property {boolean} sso single sign-on through the organisation's identity provider
 * @property {boolean} token named admins' tokens; when false, only the bootstrap token (break-glass)
 */
/** @typedef {{ main: HTMLElement, me: Admin }} ViewContext what every view is shown with */

const REQUESTED_BY = 'cbg-admin-ui';
export const WRITE_HEADERS = writeHeaders(REQUESTED_BY);

export const adminSession = /** @type {import('../../ui-kit/session.js').Session<Admin>} */ (
  session({ path: '/ui/session', requestedBy: REQUESTED_BY, secretField: 'token', subjectField: 'admin' })
);

/**
 * The ways to sign in, from `GET /ui/session`; a token alone when the answer does not say (a
 * gateway before single sign-on, or the question failed: the token form still works).
 * @returns {Promise<SignInMethods>}
 */
export async function signInMethods() {
  const said = /** @type {Partial<SignInMethods> | undefined} */ ((await adminSession.answer().catch(() => null))?.signIn);
  return { sso: said?.sso === true, token: said?.token !== false };
}

let onSessionEnded = () => false;

/**
 * What the console does when an API call finds its session over: true when it was signed in.
 * @param {() => boolean} handler
 */
export function whenSessionEnds(handler) {
  onSessionEnded = handler;
}

export const api = apiClient({ base: '/v1', writeHeaders: WRITE_HEADERS, sessionEnded: () => onSessionEnded() });

/** @param {string} id */
export const filedText = (id) => `Filed for approval as change ${id}: awaiting another approver.`;

/**
 * A write: applied, or filed for approval (202), which the notice then says.
 * @param {string} method
 * @param {string} path
 * @param {unknown} body
 * @param {HTMLElement} notice
 */
export async function write(method, path, body, notice) {
  const res = await api(method, path, body);
  if (res.status === 202) tell(notice, filedText(res.data.id));
  return res;
}

/**
 * A path segment of the admin API.
 * @param {string} part
 */
export const seg = (part) => encodeURIComponent(part);

// @ts-check
// A browser UI's session: who is signed in, signing in with a secret and out again, against the
// gateway's session route (the admin console's `/ui/session`), whose answer may say more than who
// (the admin console's ways to sign in): `answer()` reads it whole. The cookie is HttpOnly and set by
// the gateway; the page never stores the secret. Every write carries `X-Requested-By` with the
// UI's own value, a header a cross-site page cannot set (the gateway refuses cookie writes
// without it).
import { postJson } from './api.js';

/**
 * The headers of a write from this UI.
 * @param {string} requestedBy
 * @returns {Record<string, string>}
 */
export const writeHeaders = (requestedBy) => ({ 'content-type': 'application/json', 'x-requested-by': requestedBy });

/**
 * @template Subject
 * @typedef {object} Session
 * @property {() => Promise<Subject | null>} current who is signed in
 * @property {() => Promise<Record<string, unknown> | null>} answer the session route's whole answer; null when it failed
 * @property {(secret: string) => Promise<void>} signIn
 * @property {() => Promise<void>} signOut
 */

/**
 * A session; its subject's type is the caller's to state (`Session<Admin>`).
 * @param {{ path: string, requestedBy: string, secretField: string, subjectField: string }} options the names of the
 *   secret in the sign-in body and of the subject in the answer to "who is signed in"
 * @returns {Session<unknown>}
 */
export function session({ path, requestedBy, secretField, subjectField }) {
  const headers = writeHeaders(requestedBy);
  const answer = async () => {
    const res = await fetch(path, { credentials: 'same-origin' });
    return res.ok ? /** @type {Record<string, unknown>} */ (await res.json()) : null;
  };
  return {
    answer,
    async current() {
      return (await answer())?.[subjectField] ?? null;
    },
    /** @param {string} secret */
    async signIn(secret) {
      await postJson(path, { [secretField]: secret }, headers, 'same-origin');
    },
    async signOut() {
      await fetch(path, { method: 'DELETE', headers, credentials: 'same-origin' });
    },
  };
}

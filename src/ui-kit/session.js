// @ts-check
// A browser UI's session: who is signed in, signing in with a secret and out again, against the
// gateway's session route (the admin console's `/ui/session`). The cookie is HttpOnly and set by
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
 * @typedef {{ current(): Promise<Subject | null>, signIn(secret: string): Promise<void>, signOut(): Promise<void> }} Session
 */

/**
 * A session; its subject's type is the caller's to state (`Session<Admin>`).
 * @param {{ path: string, requestedBy: string, secretField: string, subjectField: string }} options the names of the
 *   secret in the sign-in body and of the subject in the answer to "who is signed in"
 * @returns {Session<unknown>}
 */
export function session({ path, requestedBy, secretField, subjectField }) {
  const headers = writeHeaders(requestedBy);
  return {
    async current() {
      const res = await fetch(path, { credentials: 'same-origin' });
      return res.ok ? ((await res.json())[subjectField] ?? null) : null;
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

// @ts-check
// The vendor portal's side of its JSON API (`/portal/api/`): the kit's client bound to that base
// and to the portal's own anti-forgery header (`X-Requested-By: cbg-portal-ui`, which the gateway
// requires of every cookie write), and the portal session at `/portal/api/session` (who is signed
// in: a portal user of one vendor). Reads the answers; sets nothing.
import { apiClient } from '../ui-kit/api.js';
import { session, writeHeaders } from '../ui-kit/session.js';

/** @typedef {import('./types.js').PortalUser} PortalUser */
/** @typedef {{ main: HTMLElement, me: PortalUser, arg: string | undefined }} ViewContext what every screen is shown with */

const REQUESTED_BY = 'cbg-portal-ui';

export const portalSession = /** @type {import('../ui-kit/session.js').Session<PortalUser>} */ (
  session({ path: '/portal/api/session', requestedBy: REQUESTED_BY, secretField: 'token', subjectField: 'portalUser' })
);

let onSessionEnded = () => false;

/**
 * What the portal does when an API call finds its session over: true when it was signed in.
 * @param {() => boolean} handler
 */
export function whenSessionEnds(handler) {
  onSessionEnded = handler;
}

export const api = apiClient({ base: '/portal/api', writeHeaders: writeHeaders(REQUESTED_BY), sessionEnded: () => onSessionEnded() });

/**
 * A path segment of the portal API.
 * @param {string} part
 */
export const seg = (part) => encodeURIComponent(part);

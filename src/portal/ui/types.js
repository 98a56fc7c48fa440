// @ts-check
// The shapes of the portal API's answers (`/portal/api/`, docs/vendor-portal.md) that the
// portal's views read. Types only: nothing runs.

/**
 * @typedef {object} PortalUser who is signed in: a vendor's developer
 * @property {string} id
 * @property {string} name
 * @property {string} email
 * @property {string} vendorId
 * @property {string} vendorName
 */
/**
 * @typedef {object} Key one of the vendor's keys (revoked ones too); never its secret
 * @property {string} id
 * @property {string} prefix
 * @property {string} userId
 * @property {string} status
 * @property {string} [createdAt]
 * @property {string | null} [lastUsedAt]
 * @property {string | null} [expiresAt]
 * @property {string[]} [certificateThumbprints]
 */
/** @typedef {{ key: Key & { secret: string }, previous: Key }} Rotation the answer to a rotation: the new key, its secret shown once, and the old one */
/** @typedef {{ points: number, durationSeconds: number, source: 'vendor' | 'default' }} RateLimit */
/**
 * @typedef {object} Usage requests per API id and status class over a range
 * @property {'24h' | '7d'} range
 * @property {'prometheus' | 'gateway'} source
 * @property {string} [note]
 * @property {string} from
 * @property {string} to
 * @property {Array<{ apiId: string, statusClass: string, requests: number }>} rows
 * @property {RateLimit & { keys: Array<{ keyId: string, prefix: string, remaining: number, resetsInSeconds: number }> }} rateLimit
 */
/**
 * @typedef {object} LoggedRequest one entry of the request log: metadata only
 * @property {string} at
 * @property {string} requestId
 * @property {string} apiId
 * @property {number} status
 * @property {number} durationMs
 * @property {number} [upstreamStatus]
 * @property {number} [upstreamMs]
 * @property {string} keyPrefix
 * @property {string} [code]
 */
/**
 * @typedef {object} Access what the vendor may call
 * @property {{ id: string, name: string, status: string }} vendor
 * @property {Array<{ id: string, api: string, expiresAt?: string | null, apiIds: string[] }>} licences
 * @property {RateLimit} rateLimit
 * @property {string} docs
 * @property {string} openapi
 */

export {};

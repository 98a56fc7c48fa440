// @ts-check
// The shapes of the admin API's answers that the console's views read (docs: README "Admin API").
// Types only: nothing runs.

/** @typedef {{ id: string, api: string, expiresAt?: string | null }} Licence */
/**
 * @typedef {object} Key
 * @property {string} id
 * @property {string} prefix
 * @property {string} userId
 * @property {string} status
 * @property {string} [createdAt]
 * @property {string | null} [lastUsedAt]
 * @property {string | null} [expiresAt]
 * @property {string[]} [certificateThumbprints]
 */
/**
 * @typedef {object} Vendor
 * @property {string} id
 * @property {string} name
 * @property {'active' | 'suspended'} status
 * @property {{ points: number, durationSeconds: number } | null} [rateLimit]
 * @property {{ points: number, durationSeconds: number, source: 'vendor' | 'default' }} [effectiveRateLimit] the limit in force: its own or the gateway default
 * @property {Key[]} keys
 * @property {Licence[]} licences
 */
/** @typedef {{ id: string, userId: string, secret: string }} IssuedKey */
/**
 * @typedef {object} PortalUser one of a vendor's developers invited to the vendor portal (never the token's hash)
 * @property {string} id `pu-<12 hex>`
 * @property {string} vendorId
 * @property {string} email
 * @property {string} name
 * @property {string} tokenPrefix the token's first 12 characters, `cbp_…`
 * @property {string} tokenIssuedAt
 * @property {string} tokenExpiresAt
 * @property {string} createdAt
 * @property {string} createdBy the admin who invited them
 */
/** @typedef {PortalUser & { token: string }} InvitedPortalUser an invitation's or a new token's answer: the token, this once */
/** @typedef {{ id: string, permissions: Array<{ id: string, api: string }> }} User */
/** @typedef {{ id: string, at: string, actor: string, action: string, target: string, vendorIds?: string[], before: unknown, after: unknown, approval?: unknown }} AuditEntry */
/**
 * @typedef {object} Proposal a four-eyes change awaiting approval
 * @property {string} id
 * @property {string} makerId
 * @property {string} action
 * @property {string} target
 * @property {string} status
 * @property {string} [expiresAt]
 * @property {{ before?: unknown, after?: unknown }} [preview]
 */
/**
 * @typedef {object} AdminRecord a named admin (`source: 'token'`), or a single-sign-on admin (`oidc`), listed once it first signed in
 * @property {string} id `oidc:<sub>` for a single-sign-on admin
 * @property {string} name
 * @property {string} role
 * @property {string} status a single-sign-on admin's: `active` or `blocked`
 * @property {'token' | 'oidc'} [source]
 * @property {string} [email] a single-sign-on admin's
 * @property {string} [issuer] a single-sign-on admin's identity provider
 * @property {string | null} [blockedAt]
 * @property {string | null} [tokenPrefix]
 * @property {string} [createdAt]
 */

export {};

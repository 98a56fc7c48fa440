/**
 * What each admin role may do (README "Admin identities"): viewers read everything, the audit log
 * included; operators also change vendors, keys, licences, permissions and rate limits; approvers
 * read and approve or reject proposals; owners do everything and manage admins.
 *
 * Pure: maps a role to its capabilities.
 */
import type { AdminRole } from '../../access/model';

export type Capability = 'read' | 'write' | 'approve' | 'manage-admins';

const CAPABILITIES: Readonly<Record<AdminRole, readonly Capability[]>> = {
  viewer: ['read'],
  operator: ['read', 'write'],
  approver: ['read', 'approve'],
  owner: ['read', 'write', 'approve', 'manage-admins'],
};

export function roleAllows(role: AdminRole, capability: Capability): boolean {
  return CAPABILITIES[role].includes(capability);
}

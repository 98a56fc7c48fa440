import { roleAllows } from './roles';

describe('roleAllows', () => {
  it.each([
    ['viewer', ['read']],
    ['operator', ['read', 'write']],
    ['approver', ['read', 'approve']],
    ['owner', ['read', 'write', 'approve', 'manage-admins']],
  ] as const)('lets a %s do exactly %j', (role, allowed) => {
    for (const capability of ['read', 'write', 'approve', 'manage-admins'] as const) {
      expect(roleAllows(role, capability)).toBe((allowed as readonly string[]).includes(capability));
    }
  });
});

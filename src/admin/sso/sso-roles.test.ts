import { roleFromClaims, type RoleGroups } from './sso-roles';

const roles: RoleGroups = {
  owner: ['gateway-owners'],
  approver: ['gateway-approvers', '7f3c2a9e-0d1b-4c55-9a43-3c1f0e6b2d11'],
  operator: ['gateway-operators'],
  viewer: ['gateway-viewers'],
};

describe('roleFromClaims', () => {
  it('gives the strongest role whose group the claim lists, whatever the order of the groups', () => {
    expect(roleFromClaims({ groups: ['gateway-viewers', 'gateway-owners', 'gateway-operators'] }, 'groups', roles)).toEqual({ role: 'owner' });
    expect(roleFromClaims({ groups: ['gateway-operators', 'gateway-viewers'] }, 'groups', roles)).toEqual({ role: 'operator' });
  });

  it('matches a group id as well as a name (Entra ID sends object ids)', () => {
    expect(roleFromClaims({ groups: ['7f3c2a9e-0d1b-4c55-9a43-3c1f0e6b2d11'] }, 'groups', roles)).toEqual({ role: 'approver' });
  });

  it('reads the configured claim, and a single string as one group', () => {
    expect(roleFromClaims({ roles: 'gateway-viewers', groups: ['gateway-owners'] }, 'roles', roles)).toEqual({ role: 'viewer' });
  });

  it('refuses an admin in no mapped group, and one without the claim', () => {
    expect(roleFromClaims({ groups: ['payroll'] }, 'groups', roles)).toEqual({ refused: 'no_role' });
    expect(roleFromClaims({}, 'groups', roles)).toEqual({ refused: 'no_role' });
    expect(roleFromClaims({ groups: [42, null] }, 'groups', roles)).toEqual({ refused: 'no_role' });
  });

  it('tells an overage apart: the claim moved to _claim_names, or hasgroups without a list', () => {
    const moved = { _claim_names: { groups: 'src1' }, _claim_sources: { src1: { endpoint: 'https://graph.microsoft.com/v1.0/users/x/getMemberObjects' } } };
    expect(roleFromClaims(moved, 'groups', roles)).toEqual({ refused: 'groups_overage' });
    expect(roleFromClaims({ hasgroups: true }, 'groups', roles)).toEqual({ refused: 'groups_overage' });
    // App roles are another claim: an overage of groups does not touch them.
    expect(roleFromClaims({ ...moved, roles: ['gateway-operators'] }, 'roles', roles)).toEqual({ role: 'operator' });
  });
});

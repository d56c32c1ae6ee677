import { userClaims } from './claims-user';

const base = {
  sub: 'u1',
  issuer: 'https://idp.test/auth/7',
  tenant: { id: 7, name: 'acme' },
  amr: ['pwd'],
  legacyRoleCompatibility: false,
};

describe('userClaims', () => {
  it('keys resource_roles by resource-server identifier and flattens roles only with legacy compatibility', () => {
    const memberships = {
      groups: ['eng'],
      roles: [
        { name: 'clerk', resourceServer: 'https://api.orders' },
        { name: 'viewer', resourceServer: 'https://api.reports' },
        { name: 'admin', resourceServer: 'https://api.orders' },
      ],
    };
    const plain = userClaims({ ...base, user: {}, memberships });
    expect(plain.resource_roles).toEqual({
      'https://api.orders': ['admin', 'clerk'],
      'https://api.reports': ['viewer'],
    });
    expect(plain).not.toHaveProperty('access_roles');
    expect(plain).not.toHaveProperty('roles');
    const legacy = userClaims({ ...base, legacyRoleCompatibility: true, user: {}, memberships });
    expect(legacy.access_roles).toEqual(['admin', 'clerk', 'viewer']);
    expect(legacy.roles).toEqual(['admin', 'clerk', 'viewer']);
  });

  it('releases only standard claims from the stored claims, so a stored key cannot shadow tenant or sub', () => {
    const out = userClaims({ ...base, user: { claims: { name: 'A', tenant: 'evil', sub: 'x', custom: 1 } } });
    expect(out.name).toBe('A');
    expect(out.tenant).toEqual({ id: 7, name: 'acme' });
    expect(out.sub).toBe('u1');
    expect(out).not.toHaveProperty('custom');
  });
});

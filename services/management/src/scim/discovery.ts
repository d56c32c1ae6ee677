/**
 * Service provider configuration endpoints (RFC 7644 section 4): /ServiceProviderConfig, /ResourceTypes and
 * /Schemas, describing exactly what this service provider does (RFC 7643 sections 5, 6 and 7).
 */
import { ENTERPRISE_SCHEMA } from './user-resource';
import { GROUP_SCHEMA, USER_SCHEMA } from './filter';

export const MAX_RESULTS = 200;
const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

export function listResponse(resources: unknown[], totalResults: number, startIndex: number) {
  return { schemas: [LIST_SCHEMA], totalResults, startIndex, itemsPerPage: resources.length, Resources: resources };
}

export function serviceProviderConfig(base: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    documentationUri: 'https://github.com/idp/docs/operators/scim.md',
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: true },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description:
          "A SCIM credential of the tenant (created in the console or the management API), or an access token of the tenant's management audience with the scope auth.scim.provision",
        specUri: 'https://www.rfc-editor.org/rfc/rfc6750',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

export function resourceTypes(base: string) {
  return [
    {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'A person of the tenant',
      schema: USER_SCHEMA,
      schemaExtensions: [{ schema: ENTERPRISE_SCHEMA, required: false }],
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
    },
    {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description: 'A group of the tenant; membership drives role-based access',
      schema: GROUP_SCHEMA,
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/Group` },
    },
  ];
}

interface Attr {
  name: string;
  type: 'string' | 'boolean' | 'complex' | 'reference' | 'dateTime' | 'binary';
  multiValued?: boolean;
  required?: boolean;
  caseExact?: boolean;
  mutability?: 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';
  returned?: 'always' | 'never' | 'default' | 'request';
  uniqueness?: 'none' | 'server' | 'global';
  subAttributes?: Attr[];
  referenceTypes?: string[];
  canonicalValues?: string[];
}

function attr(a: Attr): Record<string, unknown> {
  return {
    name: a.name,
    type: a.type,
    multiValued: a.multiValued ?? false,
    description: a.name,
    required: a.required ?? false,
    caseExact: a.caseExact ?? false,
    mutability: a.mutability ?? 'readWrite',
    returned: a.returned ?? 'default',
    uniqueness: a.uniqueness ?? 'none',
    ...(a.subAttributes ? { subAttributes: a.subAttributes.map(attr) } : {}),
    ...(a.referenceTypes ? { referenceTypes: a.referenceTypes } : {}),
    ...(a.canonicalValues ? { canonicalValues: a.canonicalValues } : {}),
  };
}

const s = (name: string, extra: Partial<Attr> = {}): Attr => ({ name, type: 'string', ...extra });
const multi = (name: string, sub: Attr[] = []): Attr => ({
  name,
  type: 'complex',
  multiValued: true,
  subAttributes: [s('value'), s('display'), s('type'), { name: 'primary', type: 'boolean' }, ...sub],
});

const USER_ATTRIBUTES: Attr[] = [
  s('userName', { required: true, uniqueness: 'server' }),
  {
    name: 'name',
    type: 'complex',
    subAttributes: [
      s('formatted'),
      s('familyName'),
      s('givenName'),
      s('middleName'),
      s('honorificPrefix'),
      s('honorificSuffix'),
    ],
  },
  s('displayName'),
  s('nickName'),
  { name: 'profileUrl', type: 'reference', referenceTypes: ['external'] },
  s('title'),
  s('userType'),
  s('preferredLanguage'),
  s('locale'),
  s('timezone'),
  { name: 'active', type: 'boolean' },
  s('password', { mutability: 'writeOnly', returned: 'never' }),
  multi('emails'),
  multi('phoneNumbers'),
  multi('ims'),
  multi('photos'),
  {
    name: 'addresses',
    type: 'complex',
    multiValued: true,
    subAttributes: [
      s('formatted'),
      s('streetAddress'),
      s('locality'),
      s('region'),
      s('postalCode'),
      s('country'),
      s('type'),
      { name: 'primary', type: 'boolean' },
    ],
  },
  {
    name: 'groups',
    type: 'complex',
    multiValued: true,
    mutability: 'readOnly',
    subAttributes: [
      s('value', { mutability: 'readOnly' }),
      { name: '$ref', type: 'reference', referenceTypes: ['Group'], mutability: 'readOnly' },
      s('display', { mutability: 'readOnly' }),
      s('type', { mutability: 'readOnly', canonicalValues: ['direct'] }),
    ],
  },
  multi('entitlements'),
  multi('roles'),
  {
    ...multi('x509Certificates'),
    subAttributes: [{ name: 'value', type: 'binary' }, s('display'), s('type'), { name: 'primary', type: 'boolean' }],
  },
];

const ENTERPRISE_ATTRIBUTES: Attr[] = [
  s('employeeNumber'),
  s('costCenter'),
  s('organization'),
  s('division'),
  s('department'),
  {
    name: 'manager',
    type: 'complex',
    subAttributes: [
      s('value'),
      { name: '$ref', type: 'reference', referenceTypes: ['User'] },
      s('displayName', { mutability: 'readOnly' }),
    ],
  },
];

const GROUP_ATTRIBUTES: Attr[] = [
  s('displayName', { required: true, uniqueness: 'server' }),
  {
    name: 'members',
    type: 'complex',
    multiValued: true,
    subAttributes: [
      s('value', { mutability: 'immutable' }),
      { name: '$ref', type: 'reference', referenceTypes: ['User'], mutability: 'immutable' },
      s('display', { mutability: 'readOnly' }),
      s('type', { mutability: 'immutable', canonicalValues: ['User'] }),
    ],
  },
];

export function schemas(base: string) {
  const schema = (id: string, name: string, attributes: Attr[]) => ({
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    id,
    name,
    description: name,
    attributes: attributes.map(attr),
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${id}` },
  });
  return [
    schema(USER_SCHEMA, 'User', USER_ATTRIBUTES),
    schema(ENTERPRISE_SCHEMA, 'EnterpriseUser', ENTERPRISE_ATTRIBUTES),
    schema(GROUP_SCHEMA, 'Group', GROUP_ATTRIBUTES),
  ];
}

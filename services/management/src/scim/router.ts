/**
 * A SCIM 2.0 service provider per tenant (RFC 7643 schema, RFC 7644 protocol) at
 * `{PUBLIC_BASE_URL}/auth/{tenantId}/scim/v2`: the tenant's directory (Entra ID, Okta, ...) creates, updates and
 * deactivates the tenant's users and groups. Users and Groups are the tenant's own users and groups (group membership
 * is the users' groupIds, so it drives role-based access as groups always have); what the directory writes is marked
 * `managedBy: "scim"`. Deactivating or deleting a user offboards it (offboarding.ts).
 *
 * Every query names the tenant: an id of another tenant's user or group is a 404, a member of another tenant is a
 * 400 `invalidValue`.
 */
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { toObjectId, type Models } from '@idp/db';
import type { InvalidationKindName, RevocationInput } from '@idp/events';
import { jsonBody } from '@idp/http';
import type { Logger } from '@idp/logger';
import { DUMMY_PASSWORD_HASH, hashPassword } from '@idp/tokens';
import { groupManagementScopes, userManagementScopes } from '../auth/escalation';
import { assertPrincipalHolds, scimAuthenticate, principalOf } from './auth';
import { listResponse, MAX_RESULTS, resourceTypes, schemas, serviceProviderConfig } from './discovery';
import { ScimError, scimErrorHandler, scimErrors } from './errors';
import { groupFilterQuery, GROUP_SCHEMA, userFilterQuery } from './filter';
import { endStoredAccess, offboard, type OffboardingResult } from './offboarding';
import { applyPatch, patchOperations } from './patch';
import { claimsOf, userResource, userWriteOf, versionOf, type StoredUser, type UserWrite } from './user-resource';

export interface ScimDeps {
  models: Models;
  logger: Logger;
  publicBaseUrl: string;
  /** The management API's access-token verifier (auth/bearer.ts). */
  accessToken: RequestHandler;
  revoke?: (input: RevocationInput) => Promise<void>;
  publishInvalidation?: (event: { tenantId: number; kind: InvalidationKindName; id?: string }) => Promise<void> | void;
  /** The most members a group representation carries (default 10,000); membership changes are never limited by it. */
  maxGroupMembers?: number;
}

/** A list response carries members only when `attributes` asks for them, and then for at most this many groups. */
const LIST_GROUPS_WITH_MEMBERS = 10;

export const SCIM_PATH = '/auth/:tenantId/scim/v2';
const CONTENT_TYPE = 'application/scim+json';

interface StoredGroup {
  _id: unknown;
  tenantId: number;
  name: string;
  externalId?: string;
  managedBy?: 'scim';
  createdAt?: Date;
  updatedAt?: Date;
}

type Handler = (req: Request, res: Response) => Promise<void>;
const wrap =
  (h: Handler): RequestHandler =>
  (req: Request, res: Response, next: NextFunction) => {
    h(req, res).catch(next);
  };

function send(res: Response, status: number, body?: unknown, headers: Record<string, string> = {}) {
  res.setHeader('Cache-Control', 'no-store');
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.status(status);
  if (body === undefined) res.end();
  else res.type(CONTENT_TYPE).send(JSON.stringify(body));
}

/** RFC 7644 section 3.14: If-Match with a version that is not the current one is a 412. */
function checkIfMatch(req: Request, updatedAt: Date | undefined) {
  const header = req.get('if-match');
  if (header === undefined || header.trim() === '*') return;
  const current = versionOf(updatedAt);
  const given = header.split(',').map((v) => v.trim());
  if (!given.includes(current) && !given.includes(current.slice(2)))
    throw scimErrors.preconditionFailed('the resource has changed (If-Match does not match its version)');
}

interface ListQuery {
  filter?: string;
  startIndex: number;
  count: number;
  attributes?: string[];
  excludedAttributes?: string[];
}

const SEARCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:SearchRequest';

/** The query parameters of a GET (RFC 7644 section 3.4.2), or the SearchRequest of a POST .search (section 3.4.3). */
function listQuery(req: Request, fromBody = false): ListQuery {
  const q = (fromBody ? req.body : req.query) as Record<string, unknown> | undefined;
  if (fromBody) {
    if (!q || typeof q !== 'object' || Array.isArray(q))
      throw scimErrors.invalidSyntax('the body must be a SearchRequest');
    const schemas = q.schemas;
    if (!Array.isArray(schemas) || !schemas.includes(SEARCH_SCHEMA))
      throw scimErrors.invalidSyntax(`schemas must be ["${SEARCH_SCHEMA}"]`);
  }
  const source = q ?? {};
  const one = (name: string): string | undefined => {
    const v = source[name];
    if (v === undefined) return undefined;
    if (fromBody && typeof v === 'number') return String(v);
    if (typeof v !== 'string') throw scimErrors.invalidValue(`${name} must be given once`);
    return v;
  };
  const int = (name: string): number | undefined => {
    const v = one(name);
    if (v === undefined) return undefined;
    if (!/^-?\d{1,9}$/.test(v)) throw scimErrors.invalidValue(`${name} must be an integer`);
    return Number(v);
  };
  const list = (name: string) => {
    const v = source[name];
    if (fromBody && Array.isArray(v)) {
      if (!v.every((a): a is string => typeof a === 'string')) throw scimErrors.invalidValue(`${name} must be strings`);
      return v;
    }
    return one(name)
      ?.split(',')
      .map((a) => a.trim())
      .filter(Boolean);
  };
  const filter = one('filter');
  if (filter !== undefined && filter.length > 2048) throw scimErrors.invalidFilter('the filter is too long');
  // RFC 7644 section 3.4.2.4: startIndex below 1 is 1; a negative count is 0; more than maxResults is cut.
  const attributes = list('attributes');
  const excludedAttributes = list('excludedAttributes');
  return {
    ...(filter !== undefined ? { filter } : {}),
    startIndex: Math.max(1, int('startIndex') ?? 1),
    count: Math.min(MAX_RESULTS, Math.max(0, int('count') ?? 100)),
    ...(attributes ? { attributes } : {}),
    ...(excludedAttributes ? { excludedAttributes } : {}),
  };
}

/** RFC 7644 section 3.4.2.5, top-level attributes: `id`, `schemas` and `meta` are always returned. */
function project(resource: Record<string, unknown>, q: Pick<ListQuery, 'attributes' | 'excludedAttributes'>) {
  const always = new Set(['id', 'schemas', 'meta']);
  const top = (a: string) => {
    const name = a.includes(':') && !a.toLowerCase().endsWith('2.0:user') ? a.slice(a.lastIndexOf(':') + 1) : a;
    return name.split('.')[0]!.toLowerCase();
  };
  if (q.attributes?.length) {
    const keep = new Set(q.attributes.map(top));
    return Object.fromEntries(Object.entries(resource).filter(([k]) => always.has(k) || keep.has(k.toLowerCase())));
  }
  if (q.excludedAttributes?.length) {
    const drop = new Set(q.excludedAttributes.map(top));
    return Object.fromEntries(Object.entries(resource).filter(([k]) => always.has(k) || !drop.has(k.toLowerCase())));
  }
  return resource;
}

export function scimRouter(deps: ScimDeps): Router {
  const { models } = deps;
  const maxGroupMembers = deps.maxGroupMembers ?? 10_000;
  const router = Router({ mergeParams: true });
  const baseOf = (tenantId: number) => `${deps.publicBaseUrl.replace(/\/+$/, '')}/auth/${tenantId}/scim/v2`;
  const tenantOf = (req: Request) => Number(req.params.tenantId);
  const audit = (req: Request, action: string, details: Record<string, unknown>) => {
    const principal = principalOf(req);
    deps.logger.info(
      { action, tenantId: tenantOf(req), scim: { kind: principal.kind, id: principal.id }, ...details },
      'scim write',
    );
  };
  const invalidate = async (tenantId: number, kind: InvalidationKindName, id: string) => {
    try {
      await deps.publishInvalidation?.({ tenantId, kind, id });
    } catch (err) {
      deps.logger.warn({ err, tenantId, kind }, 'configuration invalidation not published; caches expire by TTL');
    }
  };

  router.use((req: Request, _res: Response, next: NextFunction) => {
    if (!/^\d{1,15}$/.test(String(req.params.tenantId))) {
      next(scimErrors.notFound('not found'));
      return;
    }
    models.Tenant.exists({ _id: tenantOf(req) })
      .then((found) => next(found ? undefined : scimErrors.notFound('tenant not found')))
      .catch(next);
  });
  router.use(scimAuthenticate(models, deps.accessToken));
  router.use(jsonBody({ type: ['application/scim+json', 'application/json'], limit: '256kb' }));

  // ---- Discovery (RFC 7644 section 4) ----
  router.get('/ServiceProviderConfig', (req, res) => send(res, 200, serviceProviderConfig(baseOf(tenantOf(req)))));
  router.get('/ResourceTypes', (req, res) => {
    const all = resourceTypes(baseOf(tenantOf(req)));
    send(res, 200, listResponse(all, all.length, 1));
  });
  router.get('/ResourceTypes/:id', (req, res, next) => {
    const found = resourceTypes(baseOf(tenantOf(req))).find((r) => r.id === req.params.id);
    if (!found) next(scimErrors.notFound('resource type not found'));
    else send(res, 200, found);
  });
  router.get('/Schemas', (req, res) => {
    const all = schemas(baseOf(tenantOf(req)));
    send(res, 200, listResponse(all, all.length, 1));
  });
  router.get('/Schemas/:id', (req, res, next) => {
    const found = schemas(baseOf(tenantOf(req))).find((s) => s.id === req.params.id);
    if (!found) next(scimErrors.notFound('schema not found'));
    else send(res, 200, found);
  });

  // ---- Users ----
  const findUser = async (tenantId: number, id: string) => {
    const oid = toObjectId(id);
    const doc = oid ? await models.User.findOne({ tenantId, _id: oid }, { passwordHash: 0 }).lean<StoredUser>() : null;
    if (!doc) throw scimErrors.notFound(`user ${id.slice(0, 64)} not found`);
    return doc;
  };
  const groupsOf = async (tenantId: number, doc: StoredUser) => {
    const ids = (doc.groupIds ?? []).map((g) => toObjectId(g)).filter((g) => g !== undefined);
    if (!ids.length) return [];
    const groups = await models.Group.find({ tenantId, _id: { $in: ids } }, { name: 1 }).lean<StoredGroup[]>();
    return groups.map((g) => ({ id: String(g._id), name: g.name }));
  };
  const userOut = async (tenantId: number, doc: StoredUser) =>
    userResource(doc, baseOf(tenantId), await groupsOf(tenantId, doc));
  const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  /** userName is unique without regard to case (RFC 7643 section 4.1.1: caseExact false, uniqueness server). */
  const assertUnique = async (tenantId: number, write: UserWrite, exceptId?: unknown) => {
    const others = (q: Record<string, unknown>) => ({
      tenantId,
      ...q,
      ...(exceptId ? { _id: { $ne: exceptId } } : {}),
    });
    if (await models.User.exists(others({ username: new RegExp(`^${escape(write.username)}$`, 'i') })))
      throw scimErrors.uniqueness(`userName ${write.username} is taken`);
    if (write.externalId && (await models.User.exists(others({ externalId: write.externalId }))))
      throw scimErrors.uniqueness('another user has this externalId');
  };
  /**
   * Taking over a user the directory did not create (matched by userName: how Entra ID and Okta link existing
   * accounts) is refused for users who hold management scopes: a directory credential must not be able to lock out,
   * rename or set the password of the tenant's administrators unless they are directory-managed already.
   */
  const assertMayWrite = async (req: Request, tenantId: number, doc: StoredUser) => {
    const scopes = [...(await userManagementScopes(models, tenantId, String(doc._id)))];
    if (doc.managedBy !== 'scim' && scopes.length)
      throw scimErrors.forbidden(
        'this user holds management scopes and is not directory-managed: change it in the console',
      );
    // No privilege escalation (auth/escalation.ts): a directory-managed user whose groups grant management scopes is
    // written only by a credential or token holding them all, as the management API requires of its callers.
    assertPrincipalHolds(principalOf(req), scopes, 'this user');
  };
  const storedFields = async (write: UserWrite, existingClaims: Record<string, unknown>) => ({
    username: write.username,
    enabled: write.enabled,
    managedBy: 'scim' as const,
    scim: write.scim,
    claims: claimsOf(existingClaims, write.scim),
    ...(write.password ? { passwordHash: await hashPassword(write.password) } : {}),
  });
  /** Saves a full representation; offboards when the result is inactive and it was not, or the request said so. */
  const saveUser = async (
    req: Request,
    existing: StoredUser,
    write: UserWrite,
    activeSent: boolean,
    action: string,
  ) => {
    const tenantId = tenantOf(req);
    await assertMayWrite(req, tenantId, existing);
    await assertUnique(tenantId, write, existing._id);
    const set = await storedFields(write, existing.claims ?? {});
    const res = await models.User.updateOne(
      { tenantId, _id: existing._id },
      write.externalId ? { $set: { ...set, externalId: write.externalId } } : { $set: set, $unset: { externalId: 1 } },
    );
    if (!res.matchedCount) throw scimErrors.notFound('user not found');
    const userId = String(existing._id);
    let offboarded: OffboardingResult | undefined;
    let accessEnded: Awaited<ReturnType<typeof endStoredAccess>> | undefined;
    if (!write.enabled && (existing.enabled || activeSent))
      offboarded = await offboard(deps, tenantId, userId, 'user.deprovisioned');
    // A new password signs the person out everywhere, as the management API's password reset promises: whoever had
    // the old one keeps no session, grant or refresh token.
    else if (write.password) accessEnded = await endStoredAccess(models, tenantId, userId);
    audit(req, action, {
      userId,
      username: write.username,
      ...(existing.enabled !== write.enabled ? { active: write.enabled } : {}),
      passwordSet: Boolean(write.password),
      ...(offboarded ? { offboarding: offboarded } : {}),
      ...(accessEnded ? { accessEnded } : {}),
    });
    await invalidate(tenantId, 'user', userId);
    return findUser(tenantId, userId);
  };

  router.post(
    '/Users',
    wrap(async (req, res) => {
      const tenantId = tenantOf(req);
      const write = userWriteOf(req.body);
      await assertUnique(tenantId, write);
      const created = await models.User.create({
        tenantId,
        ...(await storedFields(write, {})),
        ...(write.password ? {} : { passwordHash: DUMMY_PASSWORD_HASH }),
        ...(write.externalId ? { externalId: write.externalId } : {}),
      }).catch((err: unknown) => {
        if ((err as { code?: unknown }).code === 11000)
          throw scimErrors.uniqueness(`userName ${write.username} is taken`);
        throw err;
      });
      const id = String(created._id);
      audit(req, 'scim.user.created', { userId: id, username: write.username, active: write.enabled });
      await invalidate(tenantId, 'user', id);
      const out = await userOut(tenantId, await findUser(tenantId, id));
      const meta = out.meta as { location: string; version: string };
      send(res, 201, out, { Location: meta.location, ETag: meta.version });
    }),
  );

  const listUsers = async (req: Request, res: Response, q: ListQuery) => {
    const tenantId = tenantOf(req);
    const filter = { tenantId, ...(q.filter ? userFilterQuery(q.filter) : {}) };
    const total = await models.User.countDocuments(filter);
    const rows = q.count
      ? await models.User.find(filter, { passwordHash: 0 })
          .sort({ _id: 1 })
          .skip(q.startIndex - 1)
          .limit(q.count)
          .lean<StoredUser[]>()
      : [];
    const resources = await Promise.all(rows.map(async (r) => project(await userOut(tenantId, r), q)));
    send(res, 200, listResponse(resources, total, q.startIndex));
  };
  // RFC 7644 section 3.4.3: a search at the root spans every resource type; 501 as section 3.12 allows.
  router.post('/.search', (_req, _res, next) => {
    next(
      new ScimError(
        501,
        'searching several resource types at once is not supported: POST /Users/.search or /Groups/.search',
      ),
    );
  });
  router.get(
    '/Users',
    wrap((req, res) => listUsers(req, res, listQuery(req))),
  );
  router.post(
    '/Users/.search',
    wrap((req, res) => listUsers(req, res, listQuery(req, true))),
  );

  router.get(
    '/Users/:id',
    wrap(async (req, res) => {
      const tenantId = tenantOf(req);
      const out = await userOut(tenantId, await findUser(tenantId, String(req.params.id)));
      send(res, 200, project(out, listQuery(req)), { ETag: (out.meta as { version: string }).version });
    }),
  );

  router.put(
    '/Users/:id',
    wrap(async (req, res) => {
      const tenantId = tenantOf(req);
      const existing = await findUser(tenantId, String(req.params.id));
      checkIfMatch(req, existing.updatedAt);
      const write = userWriteOf(req.body);
      const activeSent = Object.keys(req.body as object).some(
        (k) => k.toLowerCase() === 'active' && (req.body as Record<string, unknown>)[k] !== null,
      );
      // RFC 7644 section 3.5.1: a PUT that leaves out `active` keeps it; default true only on creation (POST), so a
      // PUT never re-enables a user the directory or an administrator disabled.
      if (!activeSent) write.enabled = existing.enabled;
      const doc = await saveUser(req, existing, write, activeSent, 'scim.user.replaced');
      const out = await userOut(tenantId, doc);
      send(res, 200, out, { ETag: (out.meta as { version: string }).version });
    }),
  );

  router.patch(
    '/Users/:id',
    wrap(async (req, res) => {
      const tenantId = tenantOf(req);
      const ops = patchOperations(req.body);
      const existing = await findUser(tenantId, String(req.params.id));
      checkIfMatch(req, existing.updatedAt);
      const current = await userOut(tenantId, existing);
      const patched = applyPatch(current as never, ops) as unknown as Record<string, unknown>;
      const write = userWriteOf(patched);
      const activeSent = ops.some((o) =>
        o.path === undefined
          ? Boolean(
              o.value &&
              typeof o.value === 'object' &&
              Object.keys(o.value as object).some((k) => k.toLowerCase() === 'active'),
            )
          : o.path.toLowerCase() === 'active',
      );
      const doc = await saveUser(req, existing, write, activeSent, 'scim.user.patched');
      const out = await userOut(tenantId, doc);
      send(res, 200, out, { ETag: (out.meta as { version: string }).version });
    }),
  );

  router.delete(
    '/Users/:id',
    wrap(async (req, res) => {
      const tenantId = tenantOf(req);
      const existing = await findUser(tenantId, String(req.params.id));
      checkIfMatch(req, existing.updatedAt);
      await assertMayWrite(req, tenantId, existing);
      const userId = String(existing._id);
      // Offboard first: if the kill switch cannot be confirmed (503) nothing is deleted, and the retry does both.
      const offboarded = await offboard(deps, tenantId, userId, 'user.deleted');
      await models.User.deleteOne({ tenantId, _id: existing._id });
      await models.UpstreamLink.deleteMany({ tenantId, userId });
      await models.PasswordReset.deleteMany({ tenantId, userId });
      // Its passkeys, recovery codes and enrolment links.
      await models.WebauthnCredential.deleteMany({ tenantId, userId });
      await models.PasskeyRecoveryCode.deleteMany({ tenantId, userId });
      await models.WebauthnChallenge.deleteMany({ tenantId, userId });
      await models.DelegationPolicy.deleteMany({ tenantId, 'target.type': 'user', 'target.id': userId });
      audit(req, 'scim.user.deleted', { userId, username: existing.username, offboarding: offboarded });
      await invalidate(tenantId, 'user', userId);
      send(res, 204);
    }),
  );

  // ---- Groups ----
  const findGroup = async (tenantId: number, id: string) => {
    const oid = toObjectId(id);
    const doc = oid ? await models.Group.findOne({ tenantId, _id: oid }).lean<StoredGroup>() : null;
    if (!doc) throw scimErrors.notFound(`group ${id.slice(0, 64)} not found`);
    return doc;
  };
  const groupOut = async (tenantId: number, g: StoredGroup, withMembers = true) => {
    const id = String(g._id);
    const base = baseOf(tenantId);
    const members = withMembers
      ? await models.User.find({ tenantId, groupIds: id }, { _id: 1 })
          .sort({ _id: 1 })
          .limit(maxGroupMembers)
          .lean<StoredUser[]>()
      : [];
    return {
      schemas: [GROUP_SCHEMA],
      id,
      ...(g.externalId ? { externalId: g.externalId } : {}),
      displayName: g.name,
      ...(members.length
        ? {
            // No `display`: RFC 7643 section 4.2 makes it optional, and a directory compares members as it wrote them.
            members: members.map((m) => ({
              value: String(m._id),
              $ref: `${base}/Users/${String(m._id)}`,
              type: 'User',
            })),
          }
        : {}),
      meta: {
        resourceType: 'Group',
        created: (g.createdAt ?? new Date(0)).toISOString(),
        lastModified: (g.updatedAt ?? new Date(0)).toISOString(),
        location: `${base}/Groups/${id}`,
        version: versionOf(g.updatedAt),
      },
    };
  };
  interface GroupWrite {
    displayName: string;
    externalId?: string;
    members: string[];
  }
  const groupWriteOf = (body: unknown): GroupWrite => {
    if (!body || typeof body !== 'object' || Array.isArray(body))
      throw scimErrors.invalidSyntax('the body must be a JSON object');
    const b = body as Record<string, unknown>;
    const get = (n: string) => b[Object.keys(b).find((k) => k.toLowerCase() === n.toLowerCase()) ?? ''];
    const schemasValue = get('schemas');
    if (schemasValue !== undefined && (!Array.isArray(schemasValue) || !schemasValue.includes(GROUP_SCHEMA)))
      throw scimErrors.invalidValue(`schemas must include ${GROUP_SCHEMA}`);
    const displayName = get('displayName');
    if (typeof displayName !== 'string' || !displayName.trim() || displayName.length > 256)
      throw scimErrors.invalidValue('displayName is required (at most 256 characters)');
    const externalId = get('externalId');
    if (externalId !== undefined && externalId !== null && (typeof externalId !== 'string' || externalId.length > 256))
      throw scimErrors.invalidValue('externalId must be a string of at most 256 characters');
    const members = get('members') ?? [];
    if (!Array.isArray(members)) throw scimErrors.invalidValue('members must be an array');
    const ids = members.map((m: unknown) => {
      const v = m && typeof m === 'object' ? (m as Record<string, unknown>).value : undefined;
      if (typeof v !== 'string') throw scimErrors.invalidValue('each member needs a value (the user id)');
      return v;
    });
    return { displayName, ...(typeof externalId === 'string' ? { externalId } : {}), members: [...new Set(ids)] };
  };
  /** Members must be users of this tenant (groups as members are not supported). */
  const assertMembers = async (tenantId: number, ids: string[]) => {
    const oids = ids.map((id) => {
      const oid = toObjectId(id);
      if (!oid) throw scimErrors.invalidValue(`member ${id.slice(0, 64)} is not a user of this tenant`);
      return oid;
    });
    const found = await models.User.countDocuments({ tenantId, _id: { $in: oids } });
    if (found !== oids.length) throw scimErrors.invalidValue('a member is not a user of this tenant');
  };
  const assertGroupUnique = async (tenantId: number, w: GroupWrite, exceptId?: unknown) => {
    const others = (q: Record<string, unknown>) => ({
      tenantId,
      ...q,
      ...(exceptId ? { _id: { $ne: exceptId } } : {}),
    });
    if (await models.Group.exists(others({ name: new RegExp(`^${escape(w.displayName)}$`, 'i') })))
      throw scimErrors.uniqueness(`a group named ${w.displayName} exists`);
    if (w.externalId && (await models.Group.exists(others({ externalId: w.externalId }))))
      throw scimErrors.uniqueness('another group has this externalId');
  };
  /** Sets the group's members to `ids`: the users' groupIds are the membership (RBAC reads them). */
  const setMembers = async (tenantId: number, groupId: string, ids: string[]) => {
    const current = new Set(
      (await models.User.find({ tenantId, groupIds: groupId }, { _id: 1 }).lean<StoredUser[]>()).map((u) =>
        String(u._id),
      ),
    );
    const wanted = new Set(ids);
    return changeMembers(
      tenantId,
      groupId,
      ids.filter((i) => !current.has(i)),
      [...current].filter((i) => !wanted.has(i)),
    );
  };
  /**
   * Adds and removes members one by one ($addToSet / $pull on each user): a PATCH changes only the members its
   * operations name, so members past what a representation carries (maxGroupMembers) are never dropped.
   */
  const changeMembers = async (tenantId: number, groupId: string, added: string[], removed: string[]) => {
    if (added.length)
      await models.User.updateMany(
        { tenantId, _id: { $in: added.map((a) => toObjectId(a)) } },
        { $addToSet: { groupIds: groupId } },
      );
    if (removed.length)
      await models.User.updateMany(
        { tenantId, _id: { $in: removed.map((a) => toObjectId(a)) } },
        { $pull: { groupIds: groupId } },
      );
    for (const u of [...added, ...removed]) await invalidate(tenantId, 'user', u);
    return { added: added.length, removed: removed.length };
  };
  /** Local groups (not created by the directory) are not the directory's to change. */
  const assertGroupWritable = (g: StoredGroup) => {
    if (g.managedBy !== 'scim')
      throw scimErrors.forbidden('this group is not directory-managed: change it in the console');
  };
  /**
   * No privilege escalation (auth/escalation.ts, as the management API's group routes): a group whose roles grant
   * management scopes is changed or deleted, and gains or loses members, only through a credential or token holding
   * them all.
   */
  const assertMayChangeGroup = async (req: Request, tenantId: number, g: StoredGroup) => {
    assertGroupWritable(g);
    assertPrincipalHolds(principalOf(req), await groupManagementScopes(models, tenantId, String(g._id)), 'this group');
  };
  /** The member changes of a PATCH: the difference between the members it was applied to and its result. */
  interface MemberDelta {
    added: string[];
    removed: string[];
  }
  const saveGroup = async (req: Request, g: StoredGroup, w: GroupWrite, action: string, delta?: MemberDelta) => {
    const tenantId = tenantOf(req);
    await assertMayChangeGroup(req, tenantId, g);
    await assertGroupUnique(tenantId, w, g._id);
    await assertMembers(tenantId, delta ? delta.added : w.members);
    await models.Group.updateOne(
      { tenantId, _id: g._id },
      {
        $set: { name: w.displayName, ...(w.externalId ? { externalId: w.externalId } : {}) },
        ...(w.externalId ? {} : { $unset: { externalId: 1 } }),
      },
    );
    const id = String(g._id);
    const changes = delta
      ? await changeMembers(tenantId, id, delta.added, delta.removed)
      : await setMembers(tenantId, id, w.members);
    // The group's version moves with its members too (they are stored on the users).
    await models.Group.updateOne({ tenantId, _id: g._id }, { $set: { updatedAt: new Date() } }, { timestamps: false });
    audit(req, action, { groupId: id, displayName: w.displayName, members: changes });
    await invalidate(tenantId, 'group', id);
    return findGroup(tenantId, id);
  };

  router.post(
    '/Groups',
    wrap(async (req, res) => {
      const tenantId = tenantOf(req);
      const w = groupWriteOf(req.body);
      await assertGroupUnique(tenantId, w);
      await assertMembers(tenantId, w.members);
      const created = await models.Group.create({
        tenantId,
        name: w.displayName,
        roleIds: [],
        managedBy: 'scim',
        ...(w.externalId ? { externalId: w.externalId } : {}),
      }).catch((err: unknown) => {
        if ((err as { code?: unknown }).code === 11000)
          throw scimErrors.uniqueness(`a group named ${w.displayName} exists`);
        throw err;
      });
      const id = String(created._id);
      const changes = await setMembers(tenantId, id, w.members);
      audit(req, 'scim.group.created', { groupId: id, displayName: w.displayName, members: changes });
      await invalidate(tenantId, 'group', id);
      const out = await groupOut(tenantId, await findGroup(tenantId, id));
      send(res, 201, out, { Location: out.meta.location, ETag: out.meta.version });
    }),
  );

  const listGroups = async (req: Request, res: Response, q: ListQuery) => {
    const tenantId = tenantOf(req);
    let filter: Record<string, unknown> = { tenantId };
    if (q.filter) {
      const f = groupFilterQuery(q.filter);
      if (f.memberOf !== undefined) {
        const user = toObjectId(f.memberOf)
          ? await models.User.findOne({ tenantId, _id: toObjectId(f.memberOf) }, { groupIds: 1 }).lean<StoredUser>()
          : null;
        const ids = (user?.groupIds ?? []).map((g) => toObjectId(g)).filter((g) => g !== undefined);
        filter = { tenantId, _id: { $in: ids } };
      } else filter = { tenantId, ...f.query };
    }
    const total = await models.Group.countDocuments(filter);
    // A list carries members only when `attributes` names them (RFC 7643 section 7: members is "returned: default",
    // and RFC 7644 section 3.4.2.5 lets `attributes` override the default set); Entra ID and Okta read members per
    // group. Then a page is at most LIST_GROUPS_WITH_MEMBERS groups (RFC 7644 section 3.4.2.4: fewer than `count`
    // may be returned; itemsPerPage says how many).
    const excluded = (q.excludedAttributes ?? []).some((a) => a.toLowerCase() === 'members');
    const wanted = Boolean(q.attributes?.some((a) => a.toLowerCase().startsWith('members')));
    const count = wanted && !excluded ? Math.min(q.count, LIST_GROUPS_WITH_MEMBERS) : q.count;
    const rows = count
      ? await models.Group.find(filter)
          .sort({ _id: 1 })
          .skip(q.startIndex - 1)
          .limit(count)
          .lean<StoredGroup[]>()
      : [];
    const resources = await Promise.all(
      rows.map(async (g) => project(await groupOut(tenantId, g, wanted && !excluded), q)),
    );
    send(res, 200, listResponse(resources, total, q.startIndex));
  };
  router.get(
    '/Groups',
    wrap((req, res) => listGroups(req, res, listQuery(req))),
  );
  router.post(
    '/Groups/.search',
    wrap((req, res) => listGroups(req, res, listQuery(req, true))),
  );

  router.get(
    '/Groups/:id',
    wrap(async (req, res) => {
      const tenantId = tenantOf(req);
      const q = listQuery(req);
      const excluded = (q.excludedAttributes ?? []).some((a) => a.toLowerCase() === 'members');
      const out = await groupOut(tenantId, await findGroup(tenantId, String(req.params.id)), !excluded);
      send(res, 200, project(out, q), { ETag: out.meta.version });
    }),
  );

  router.put(
    '/Groups/:id',
    wrap(async (req, res) => {
      const tenantId = tenantOf(req);
      const g = await findGroup(tenantId, String(req.params.id));
      checkIfMatch(req, g.updatedAt);
      const saved = await saveGroup(req, g, groupWriteOf(req.body), 'scim.group.replaced');
      const out = await groupOut(tenantId, saved);
      send(res, 200, out, { ETag: out.meta.version });
    }),
  );

  router.patch(
    '/Groups/:id',
    wrap(async (req, res) => {
      const tenantId = tenantOf(req);
      const ops = patchOperations(req.body);
      const g = await findGroup(tenantId, String(req.params.id));
      checkIfMatch(req, g.updatedAt);
      await assertMayChangeGroup(req, tenantId, g);
      const current = await groupOut(tenantId, g);
      const id = String(g._id);
      const shown = new Set((current.members ?? []).map((m) => m.value));
      const total = await models.User.countDocuments({ tenantId, groupIds: id });
      if (total > shown.size) {
        // More members than a representation carries: operations that need the whole list (replace the members,
        // remove them all) are refused rather than applied to part of it (RFC 7644 section 3.12, tooMany). Adding
        // members and removing named ones (`members[value eq "…"]`) work at any size.
        const needsAll = ops.some((o) => {
          const path = o.path?.toLowerCase();
          if (path === undefined)
            return Object.keys((o.value ?? {}) as object).some((k) => k.toLowerCase() === 'members');
          return path === 'members' && o.op.toLowerCase() !== 'add';
        });
        if (needsAll)
          throw scimErrors.tooMany(
            `the group has more than ${maxGroupMembers} members: add members, or remove them by value`,
          );
        // Members named in value filters are included so that removing one past the representation finds it.
        const named = ops.flatMap((o) =>
          [...(o.path ?? '').matchAll(/value\s+eq\s+"([0-9a-fA-F]{24})"/gi)].map((m) => m[1]!),
        );
        const oids = named.map((n) => toObjectId(n)).filter((o) => o !== undefined);
        if (oids.length) {
          const extra = await models.User.find({ tenantId, groupIds: id, _id: { $in: oids } }, { _id: 1 }).lean<
            StoredUser[]
          >();
          const base = baseOf(tenantId);
          const more = extra
            .map((u) => String(u._id))
            .filter((u) => !shown.has(u))
            .map((u) => ({ value: u, $ref: `${base}/Users/${u}`, type: 'User' }));
          if (more.length) {
            current.members = [...(current.members ?? []), ...more];
            for (const m of more) shown.add(m.value);
          }
        }
      }
      const patched = applyPatch(current as never, ops) as unknown as Record<string, unknown>;
      const w = groupWriteOf(patched);
      const result = new Set(w.members);
      const delta = {
        added: w.members.filter((m) => !shown.has(m)),
        removed: [...shown].filter((m) => !result.has(m)),
      };
      const saved = await saveGroup(req, g, w, 'scim.group.patched', delta);
      const out = await groupOut(tenantId, saved);
      send(res, 200, out, { ETag: out.meta.version });
    }),
  );

  router.delete(
    '/Groups/:id',
    wrap(async (req, res) => {
      const tenantId = tenantOf(req);
      const g = await findGroup(tenantId, String(req.params.id));
      checkIfMatch(req, g.updatedAt);
      await assertMayChangeGroup(req, tenantId, g);
      const id = String(g._id);
      const members = await setMembers(tenantId, id, []);
      await models.Group.deleteOne({ tenantId, _id: g._id });
      audit(req, 'scim.group.deleted', { groupId: id, displayName: g.name, members });
      await invalidate(tenantId, 'group', id);
      send(res, 204);
    }),
  );

  // RFC 7644 section 3.2 / RFC 9110 section 15.5.6: a known endpoint with a method it does not serve is a 405.
  const allowed: Array<[RegExp, string]> = [
    [/^\/(ServiceProviderConfig|ResourceTypes|Schemas)(\/[^/]+)?$/, 'GET'],
    [/^\/(Users|Groups)$/, 'GET, POST'],
    [/^\/((Users|Groups)\/)?\.search$/, 'POST'],
    [/^\/(Users|Groups)\/[^/]+$/, 'GET, PUT, PATCH, DELETE'],
  ];
  router.use((req: Request, res: Response, next: NextFunction) => {
    const known = allowed.find(([re]) => re.test(req.path));
    if (!known) {
      next(scimErrors.notFound('no such SCIM endpoint'));
      return;
    }
    res.setHeader('Allow', known[1]);
    next(new ScimError(405, `${req.method} is not supported here`));
  });
  router.use(scimErrorHandler(deps.logger));
  return router;
}

'use strict';
/**
 * MongoDB roles, users, collections and indexes of the identity provider. Run by the mongo-users Helm hook job
 * with the management image (node, the mongodb driver and @idp/db are in /app/node_modules):
 *
 *   NODE_PATH=/app/node_modules node /hook/mongo-setup.js
 *
 * Env: MONGODB_ADMIN_URI (an admin user's URI, database = the application database), MONGODB_DATABASE,
 * ROLES_FILE (files/mongo-roles.json), and per component in mongo-roles.json: MONGODB_USER_<COMPONENT> and
 * MONGODB_PASSWORD_<COMPONENT> (COMPONENT = OIDC, MANAGEMENT, AUDIT_WRITER, AUDIT_RETENTION).
 * Idempotent: roles and users are created, or updated to the file's privileges and the given passwords.
 */
const { readFileSync } = require('node:fs');

/** MONGODB_USER_AUDIT_WRITER for the component key auditWriter. */
const envSuffix = (component) => component.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();

/** The createRole/updateRole privileges of one component, scoped to `db`. */
function privilegesFor(role, db) {
  return role.privileges.flatMap((p) => p.collections.map((collection) => ({ resource: { db, collection }, actions: [...p.actions] })));
}

async function upsertRole(db, name, privileges) {
  const info = await db.command({ rolesInfo: name });
  if (info.roles.length) await db.command({ updateRole: name, privileges, roles: [] });
  else await db.command({ createRole: name, privileges, roles: [] });
}

async function upsertUser(db, user, pwd, role) {
  const roles = [{ role, db: db.databaseName }];
  const info = await db.command({ usersInfo: user });
  if (info.users.length) await db.command({ updateUser: user, pwd, roles });
  else await db.command({ createUser: user, pwd, roles });
}

async function main(env) {
  const spec = JSON.parse(readFileSync(env.ROLES_FILE, 'utf8'));
  const { MongoClient } = require('mongodb');
  const client = new MongoClient(env.MONGODB_ADMIN_URI, { serverSelectionTimeoutMS: 15_000, appName: 'idp-mongo-setup' });
  await client.connect();
  try {
    const db = client.db(env.MONGODB_DATABASE);
    for (const [component, role] of Object.entries(spec.roles)) {
      const suffix = envSuffix(component);
      const user = env[`MONGODB_USER_${suffix}`];
      const pwd = env[`MONGODB_PASSWORD_${suffix}`];
      if (!user || !pwd) throw new Error(`MONGODB_USER_${suffix} and MONGODB_PASSWORD_${suffix} are required`);
      await upsertRole(db, role.name, privilegesFor(role, db.databaseName));
      await upsertUser(db, user, pwd, role.name);
      process.stdout.write(`role ${role.name} and user ${user}: ready\n`);
    }
  } finally {
    await client.close();
  }
  // Collections and indexes as the models declare them (@idp/db), created here with the admin's rights.
  const { connectDatabase } = require('@idp/db');
  const log = (level) => (obj, msg) => process.stdout.write(`${level}: ${msg ?? ''} ${JSON.stringify(obj)}\n`);
  const logger = { info: log('info'), warn: log('warn'), error: log('error'), debug() {}, child() { return logger; } };
  const database = await connectDatabase(env.MONGODB_ADMIN_URI, logger, { appName: 'idp-mongo-setup' });
  try {
    await database.syncIndexes();
    process.stdout.write('collections and indexes: ready\n');
  } finally {
    await database.close();
  }
}

module.exports = { envSuffix, privilegesFor };

if (require.main === module) {
  main(process.env).then(
    () => process.exit(0),
    (err) => {
      process.stderr.write(`mongo setup failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}

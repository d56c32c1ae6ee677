// Generated from the management API's OpenAPI document by console/scripts/generate-api-types.mjs: do not edit.
// services/management/src/openapi/console-api-types.test.ts fails when it is stale (UPDATE_CONSOLE_API_TYPES=1 regenerates it).

export interface paths {
    "/auth/admin/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List scheduled jobs
         * @description Requires the scope `auth.jobs.list`.
         *
         *     Only tokens of the system tenant may call it.
         */
        get: operations["listJobs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/jobs/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a job with its next and last run
         * @description Requires the scope `auth.jobs.list`.
         *
         *     Only tokens of the system tenant may call it.
         */
        get: operations["getJob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change a job's schedule, enabled flag or custom options
         * @description On Kubernetes the CronJob is read back, then its schedule and suspend flag are updated (with the resourceVersion read as a precondition), and the job is saved only once that worked: if the CronJob cannot be read or updated the job is left unchanged (503). If someone changed the CronJob outside the jobs API (`kubernetes.drift` of GET) and this patch would overwrite those fields, it is refused with 409 (`conflict`, the fields in `drift`) and nothing changes, unless `force` is true; setting those fields to the CronJob's own values adopts them without `force`. A CronJob that changed between the read and the write is also a 409.
         *
         *     Requires the scope `auth.jobs.update`.
         *
         *     Only tokens of the system tenant may call it.
         */
        patch: operations["updateJob"];
        trace?: never;
    };
    "/auth/admin/jobs/{name}/run": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a run now
         * @description On Kubernetes creates a Job from the CronJob's template; otherwise starts the job program. The run appears under /runs once it starts.
         *
         *     Requires the scope `auth.jobs.run`.
         *
         *     Only tokens of the system tenant may call it.
         */
        post: operations["runJobNow"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/jobs/{name}/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Last runs of a job, newest first, with per-tenant counts
         * @description Requires the scope `auth.jobs.list`.
         *
         *     Only tokens of the system tenant may call it.
         */
        get: operations["listJobRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/jobs/{name}/runs/{runId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One run of a job
         * @description Requires the scope `auth.jobs.list`.
         *
         *     Only tokens of the system tenant may call it.
         */
        get: operations["getJobRun"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This OpenAPI 3.1 document */
        get: operations["getOpenApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List tenants (by id)
         * @description Requires the scope `auth.tenants.list`.
         *
         *     Only tokens of the system tenant may call it.
         */
        get: operations["listTenants"];
        put?: never;
        /**
         * Create a tenant (with its signing keys)
         * @description Requires the scope `auth.tenants.create`.
         *
         *     Only tokens of the system tenant may call it.
         */
        post: operations["createTenant"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a tenant and its settings
         * @description Requires the scope `auth.tenants.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["getTenant"];
        put?: never;
        post?: never;
        /**
         * Delete an empty tenant
         * @description Only a tenant without clients (besides the admin console's built-in one, which goes with it), users, groups, roles, resource servers and NHEs can be deleted (409 otherwise); the system tenant never. Its signing keys go with it. Its id is never reused, and its token audit rows stay until the retention job removes them by the tenant's last auditRetentionDays.
         *
         *     Requires the scope `auth.tenants.delete`.
         *
         *     Only tokens of the system tenant may call it.
         */
        delete: operations["deleteTenant"];
        options?: never;
        head?: never;
        /**
         * Update a tenant's name, enabled or settings
         * @description enabled false disables the whole tenant (system-tenant administrators only; see Tenant.enabled). Turning settings.nhe.enabled off also revokes every NHE token of the tenant already issued. A change of settings.security.profile applies to the next request of each client (the tenant's provider is rebuilt); access tokens already issued stay valid until they expire.
         *
         *     Requires the scope `auth.tenants.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        patch: operations["updateTenant"];
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/clients": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List clients (oldest first)
         * @description Requires the scope `auth.clients.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["listClients"];
        put?: never;
        /**
         * Create a client
         * @description For client_secret_basic / client_secret_post a secret is generated and returned once in `clientSecret`.
         *
         *     Requires the scope `auth.clients.create`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        post: operations["createClient"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/clients/{clientId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a client
         * @description Requires the scope `auth.clients.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["getClient"];
        put?: never;
        post?: never;
        /**
         * Delete a client
         * @description Revokes the NHE tokens issued to it. Token audit rows stay. Needs every management scope the client holds (403 otherwise). A client cannot delete itself, and the system tenant's bootstrap administrator cannot be deleted (409).
         *
         *     Requires the scope `auth.clients.delete`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["deleteClient"];
        options?: never;
        head?: never;
        /**
         * Update a client
         * @description Switching to a secret-based method on a client without a secret generates one (returned once). Turning config.nhe.delegationEnabled off, or disabling the client, revokes its NHE tokens already issued. Disabling the client, taking a grant type away from it, or changing its authentication method or keys needs every management scope the client holds (403 otherwise), and so does turning dpopBoundAccessTokens off. On a first-party client, turning pkceRequired, dpopBoundAccessTokens or requirePushedAuthorizationRequests off needs every management scope. pkceRequired false on a public client is 400; a client that becomes public gets PKCE required again. The system tenant's bootstrap administrator cannot be disabled (409).
         *
         *     Requires the scope `auth.clients.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        patch: operations["updateClient"];
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/clients/{clientId}/custom-claims-script/state": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * State of the client's customizeUserInfoClaims script in the sandbox
         * @description After repeated timeouts or memory failures (5 in a row by default) oidc-core skips the script for a while (30 s at first, doubled at each failed retry, up to 10 minutes): UserInfo then answers without custom_claims. This reports that circuit breaker, the last error and when the breaker opened. Read-only: saving a new script starts it closed. With several oidc-core replicas, each keeps its own breaker; this is the latest state any of them recorded.
         *
         *     Requires the scope `auth.clients.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["getClientCustomClaimsScriptState"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/clients/{clientId}/roles/{roleId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Assign a role to a client (idempotent)
         * @description A role on the management API needs every scope it grants (403 otherwise).
         *
         *     Requires the scope `auth.roles.assign`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        put: operations["assignRoleClient"];
        post?: never;
        /**
         * Remove a role from a client (idempotent)
         * @description A role on the management API needs every scope it grants, and removing any role needs every management scope the client holds (403 otherwise).
         *
         *     Requires the scope `auth.roles.assign`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["unassignRoleClient"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/clients/{clientId}/secret-rotations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate a new client secret (the old one stops working now)
         * @description Needs every management scope the client holds (403 otherwise).
         *
         *     Requires the scope `auth.clients.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        post: operations["rotateClientSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/clients/count": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Count clients
         * @description Requires the scope `auth.clients.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["countClients"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/groups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List groups (oldest first)
         * @description Requires the scope `auth.groups.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["listGroups"];
        put?: never;
        /**
         * Create a group
         * @description Requires the scope `auth.groups.create`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        post: operations["createGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/groups/{groupId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a group
         * @description Requires the scope `auth.groups.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["getGroup"];
        put?: never;
        post?: never;
        /**
         * Delete a group
         * @description Removes it from its members and deletes the delegation policies that target it; tokens already issued to those policies' NHEs are revoked, as when a policy is deleted.
         *
         *     Requires the scope `auth.groups.delete`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["deleteGroup"];
        options?: never;
        head?: never;
        /**
         * Rename a group
         * @description Requires the scope `auth.groups.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        patch: operations["updateGroup"];
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/groups/{groupId}/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the members of a group
         * @description Requires the scope `auth.groups.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["listGroupMembers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/groups/{groupId}/members/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Add a user to a group (idempotent)
         * @description Requires the scope `auth.groups.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        put: operations["addGroupMember"];
        post?: never;
        /**
         * Remove a user from a group
         * @description Requires the scope `auth.groups.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["removeGroupMember"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/groups/{groupId}/roles/{roleId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Assign a role to a group (idempotent)
         * @description A role on the management API needs every scope it grants (403 otherwise).
         *
         *     Requires the scope `auth.roles.assign`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        put: operations["assignRoleGroup"];
        post?: never;
        /**
         * Remove a role from a group (idempotent)
         * @description A role on the management API needs every scope it grants, and removing any role needs every management scope the group holds (403 otherwise).
         *
         *     Requires the scope `auth.roles.assign`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["unassignRoleGroup"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/groups/count": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Count groups
         * @description Requires the scope `auth.groups.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["countGroups"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/id-jag-audiences": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the ID-JAG audiences (oldest first)
         * @description Requires the scope `auth.tenants.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["listIdJagAudiences"];
        put?: never;
        /**
         * Issue Identity Assertion Authorization Grants (ID-JAG) for another authorization server
         * @description Every client named must be a confidential client of this tenant (400 naming body.clients.<i>.clientId otherwise); it also needs the token-exchange grant to ask. The audience may not be this tenant’s own issuer.
         *
         *     Requires the scope `auth.tenants.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        post: operations["createIdJagAudience"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/id-jag-audiences/{audienceId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an ID-JAG audience
         * @description Requires the scope `auth.tenants.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["getIdJagAudience"];
        put?: never;
        post?: never;
        /**
         * Stop issuing ID-JAGs for an authorization server
         * @description Token exchanges for it are refused from the next request. ID-JAGs already issued stay valid until they expire (at most their lifetime).
         *
         *     Requires the scope `auth.tenants.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["deleteIdJagAudience"];
        options?: never;
        head?: never;
        /**
         * Update an ID-JAG audience
         * @description Applies from the next token request. A clients list replaces the stored one and is checked like on create; a PATCH that leaves clients alone is not refused for a client changed or deleted since.
         *
         *     Requires the scope `auth.tenants.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        patch: operations["updateIdJagAudience"];
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/initial-access-tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the tenant's unexpired initial access tokens (never the tokens themselves)
         * @description Requires the scope `auth.clients.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["listInitialAccessTokens"];
        put?: never;
        /**
         * Issue an initial access token for Dynamic Client Registration
         * @description For a tenant whose settings.registration.mode is `initial-access-token`: the client sends it as `Authorization: Bearer` to `{issuer}/reg`. Single use by default (maxUses); expires after expiresInSeconds (default 1 day, at most 30 days). A registration that is refused does not spend a use.
         *
         *     Requires the scope `auth.clients.create`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        post: operations["createInitialAccessToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/initial-access-tokens/{tokenId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an initial access token (clients registered with it stay)
         * @description Requires the scope `auth.clients.delete`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["deleteInitialAccessToken"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/non-human-entities": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List NHE registrations (oldest first)
         * @description Requires the scope `auth.nhe.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["listNhes"];
        put?: never;
        /**
         * Register an NHE
         * @description Requires the scope `auth.nhe.create`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        post: operations["createNhe"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/non-human-entities/{nheId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an NHE registration
         * @description Requires the scope `auth.nhe.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["getNhe"];
        put?: never;
        post?: never;
        /**
         * Delete an NHE registration
         * @description Deletes the registration and its delegation policies, and revokes the tokens already issued to it. Token audit rows are kept.
         *
         *     Requires the scope `auth.nhe.delete`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["deleteNhe"];
        options?: never;
        head?: never;
        /**
         * Update an NHE registration
         * @description Disabling an NHE also revokes the tokens already issued to it (kill switch).
         *
         *     Requires the scope `auth.nhe.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        patch: operations["updateNhe"];
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/non-human-entities/{nheId}/delegation-policies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the delegation policies of an NHE (oldest first)
         * @description Requires the scope `auth.nhe.policies.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["listDelegationPolicies"];
        put?: never;
        /**
         * Create a delegation policy
         * @description One policy per target (user, group, or another NHE that may hand on to this one) and NHE; the target must exist in the tenant. maxChainDepth lets a delegated token go further down a chain: on the user's policy for the first NHE, and on each NHE -> NHE policy.
         *
         *     Requires the scope `auth.nhe.policies.create`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        post: operations["createDelegationPolicy"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/non-human-entities/{nheId}/delegation-policies/{policyId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a delegation policy
         * @description Requires the scope `auth.nhe.policies.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["getDelegationPolicy"];
        put?: never;
        post?: never;
        /**
         * Delete a delegation policy
         * @description Tokens already issued to the NHE under this policy's target are revoked.
         *
         *     Requires the scope `auth.nhe.policies.delete`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["deleteDelegationPolicy"];
        options?: never;
        head?: never;
        /**
         * Update a delegation policy
         * @description Tokens already issued to the NHE for the previous target are revoked (they may exceed the new policy).
         *
         *     Requires the scope `auth.nhe.policies.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        patch: operations["updateDelegationPolicy"];
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/non-human-entities/{nheId}/delegation-simulations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Dry run of a token exchange (or an agent client's token) for this NHE
         * @description Returns the decision record of the delegation domain function (granted scopes, the TTL and the term that set it, or the refusal and the gate that refused) for the given user, client, resource and scope. Mints nothing, writes no audit row.
         *
         *     Requires the scope `auth.nhe.policies.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        post: operations["simulateDelegation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/non-human-entities/count": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Count NHE registrations
         * @description Requires the scope `auth.nhe.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["countNhes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/non-human-entities/token-audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List NHE token issuances, newest first
         * @description Requires the scope `auth.nhe.audit.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["listTokenAudit"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/non-human-entities/token-audit-chain/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Verify the tenant's token-audit hash chain over a time range
         * @description Walks the audit rows issued in [from, to] in chain order and reports deleted rows (missing), rows whose content no longer matches their hash (altered), rows whose link to the previous row is wrong (broken-link) and, without `to`, rows deleted from the newest end (truncated). Verification starts after the point retention pruned up to.
         *
         *     Requires the scope `auth.nhe.audit.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["verifyTokenAuditChain"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/non-human-entities/token-audit/{auditId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get one audit record
         * @description Requires the scope `auth.nhe.audit.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["getTokenAudit"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/non-human-entities/token-audit/{auditId}/delegation-chain": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The whole delegation chain of a token
         * @description From any issuance of a delegation chain (user -> NHE A -> NHE B ...): walks up the parentJti links to the first delegation token, then down to every token exchanged from it, at any depth. A token that was never handed on is a chain of one. Find a token's record with `?jti=` on the list.
         *
         *     Requires the scope `auth.nhe.audit.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["getTokenAuditDelegationChain"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/non-human-entities/token-audit/count": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Count NHE token issuances
         * @description Requires the scope `auth.nhe.audit.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["countTokenAudit"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/non-human-entities/token-audit/histogram": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Tokens issued per time bucket and per NHE
         * @description Counts the NHE tokens issued in a window of one hour to seven days (default: the last 24 hours), per bucket (default: one hour) and per NHE identifier, with the same filters as the list. At most 50000 tokens are counted; past that `truncated` is true.
         *
         *     Requires the scope `auth.nhe.audit.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["getTokenAuditHistogram"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/non-human-entities/token-audit/refusals-histogram": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Refusals per time bucket and per error code
         * @description Counts the token requests the delegation service refused (denied delegation decisions and rejected requests) in a window of one hour to seven days (default: the last 24 hours), per bucket of whole hours (default: one hour) and per OAuth error code, from the hourly counters the audit-writer keeps. Best effort: a refusal the delegation service could not publish at once is dropped (and counted in its metrics).
         *
         *     Requires the scope `auth.nhe.audit.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["getTokenRefusalHistogram"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/resource-servers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List resource servers (oldest first)
         * @description Requires the scope `auth.resource-servers.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["listResourceServers"];
        put?: never;
        /**
         * Create a resource server
         * @description The identifier is an absolute URI without a fragment (RFC 8707). One that equals a built-in audience (`urn:idp:management`) after normalisation (scheme and host case, URN namespace case, trailing slash, empty query or fragment) is refused with 400 naming `body.identifier`; a scope beginning with `auth.` (the management API's prefix) is refused with 400 naming `body.scopes.<i>`. `metadataUrl` records where the API publishes its RFC 9728 Protected Resource Metadata (https, or http on a loopback host, at the `/.well-known/oauth-protected-resource` path); the `@idp/resource-server` package serves that document. `introspectionClientIds` names the confidential clients (usually the API's own) that may introspect its access tokens; an unknown or public client is refused with 400 naming `body.introspectionClientIds.<i>`.
         *
         *     Requires the scope `auth.resource-servers.create`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        post: operations["createResourceServer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/resource-servers/{resourceServerId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a resource server
         * @description Requires the scope `auth.resource-servers.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["getResourceServer"];
        put?: never;
        post?: never;
        /**
         * Delete a resource server
         * @description Refused (409) while roles still bundle its permissions.
         *
         *     Requires the scope `auth.resource-servers.delete`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["deleteResourceServer"];
        options?: never;
        head?: never;
        /**
         * Update a resource server (the identifier is immutable)
         * @description A scope beginning with `auth.` (the management API's prefix) is refused with 400 naming `body.scopes.<i>`; an unknown or public client in `introspectionClientIds` with 400 naming `body.introspectionClientIds.<i>`.
         *
         *     Requires the scope `auth.resource-servers.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        patch: operations["updateResourceServer"];
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/resource-servers/count": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Count resource servers
         * @description Requires the scope `auth.resource-servers.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["countResourceServers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/roles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List roles (oldest first)
         * @description Requires the scope `auth.roles.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["listRoles"];
        put?: never;
        /**
         * Create a role
         * @description Requires the scope `auth.roles.create`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        post: operations["createRole"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/roles/{roleId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a role
         * @description Requires the scope `auth.roles.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["getRole"];
        put?: never;
        post?: never;
        /**
         * Delete a role and every assignment of it
         * @description Requires the scope `auth.roles.delete`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["deleteRole"];
        options?: never;
        head?: never;
        /**
         * Update a role (its resource server is immutable)
         * @description Requires the scope `auth.roles.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        patch: operations["updateRole"];
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/roles/count": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Count roles
         * @description Requires the scope `auth.roles.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["countRoles"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/scim-credentials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the tenant's SCIM credentials (never the secrets)
         * @description Requires the scope `auth.users.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["listScimCredentials"];
        put?: never;
        /**
         * Create a SCIM credential (the secret is shown once)
         * @description The directory sends it as `Authorization: Bearer` to the tenant's SCIM 2.0 base URL, `{PUBLIC_BASE_URL}/auth/{tenantId}/scim/v2`. Whoever holds it can create, change, deactivate and delete the users and groups the directory manages.
         *
         *     Requires the scope `auth.users.create`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        post: operations["createScimCredential"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/scim-credentials/{credentialId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a SCIM credential (revokes it and forgets it)
         * @description Requires the scope `auth.users.delete`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["deleteScimCredential"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/scim-credentials/{credentialId}/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke a SCIM credential: the directory is refused with it from now on
         * @description Requires the scope `auth.users.delete`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        post: operations["revokeScimCredential"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/signing-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the signing keys still published (newest first); private halves are never returned
         * @description Requires the scope `auth.keys.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["listSigningKeys"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/signing-keys/rotations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate the active key of an algorithm
         * @description Creates a new active key; the previous one is retired but stays published for the longest access-token lifetime of the tenant, so tokens it signed keep verifying.
         *
         *     Requires the scope `auth.keys.rotate`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        post: operations["rotateSigningKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/ssf-streams": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the tenant's Shared Signals streams
         * @description Requires the scope `auth.tenants.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["listSsfStreams"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/ssf-streams/{streamId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a Shared Signals stream
         * @description Requires the scope `auth.tenants.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["getSsfStream"];
        put?: never;
        post?: never;
        /**
         * Delete a Shared Signals stream and its events
         * @description Requires the scope `auth.tenants.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["deleteSsfStream"];
        options?: never;
        head?: never;
        /**
         * Pause, resume or disable a Shared Signals stream
         * @description SSF 1.0 section 8.1.2: paused, the transmitter holds the events for the receiver; disabled, it drops them. The receiver sees the new status at its status endpoint. A disabled stream is enabled again only by its receiver (409 here).
         *
         *     Requires the scope `auth.tenants.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        patch: operations["updateSsfStreamStatus"];
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/trusted-issuers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the trusted external issuers (oldest first)
         * @description Requires the scope `auth.tenants.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["listTrustedIssuers"];
        put?: never;
        /**
         * Trust an external issuer of JWT bearer assertions (RFC 7523, ID-JAG)
         * @description Requires the scope `auth.tenants.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        post: operations["createTrustedIssuer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/trusted-issuers/{issuerId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a trusted external issuer
         * @description Requires the scope `auth.tenants.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["getTrustedIssuer"];
        put?: never;
        post?: never;
        /**
         * Stop trusting an external issuer
         * @description Its assertions are refused from the next token request. Tokens already issued for them stay valid until they expire.
         *
         *     Requires the scope `auth.tenants.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["deleteTrustedIssuer"];
        options?: never;
        head?: never;
        /**
         * Update a trusted external issuer
         * @description Applies from the next token request. Setting subjectMapping to user_id drops the upstream provider unless the body names one (refused).
         *
         *     Requires the scope `auth.tenants.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        patch: operations["updateTrustedIssuer"];
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/upstream-providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the upstream identity providers (oldest first)
         * @description Requires the scope `auth.tenants.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["listUpstreamProviders"];
        put?: never;
        /**
         * Add an upstream identity provider (OpenID Connect or SAML 2.0)
         * @description Requires the scope `auth.tenants.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        post: operations["createUpstreamProvider"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/upstream-providers/{alias}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an upstream identity provider
         * @description Requires the scope `auth.tenants.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["getUpstreamProvider"];
        put?: never;
        post?: never;
        /**
         * Remove an upstream identity provider and every account link to it
         * @description Accounts created through it stay (without a usable password unless one was set); their links to it go, and with them the group and role memberships its mappers granted. Sessions already signed in stay until they end.
         *
         *     Requires the scope `auth.tenants.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["deleteUpstreamProvider"];
        options?: never;
        head?: never;
        /**
         * Update an upstream identity provider
         * @description Applies from the next sign-in. `enabled: false` stops sign-in through the provider at once.
         *
         *     Requires the scope `auth.tenants.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        patch: operations["updateUpstreamProvider"];
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List users (oldest first)
         * @description Requires the scope `auth.users.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["listUsers"];
        put?: never;
        /**
         * Create a user
         * @description Requires the scope `auth.users.create`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        post: operations["createUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/users/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a user
         * @description Requires the scope `auth.users.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["getUser"];
        put?: never;
        post?: never;
        /**
         * Delete a user
         * @description Also deletes the delegation policies that target the user and revokes the NHE tokens it delegated. Token audit rows stay. Needs every management scope the user holds (403 otherwise).
         *
         *     Requires the scope `auth.users.delete`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["deleteUser"];
        options?: never;
        head?: never;
        /**
         * Update a user; enabled=false disables it
         * @description Disabling a user revokes the NHE tokens delegated by that user. Disabling a user or changing its username needs every management scope the user holds (403 otherwise): a narrower caller could lock a stronger administrator out.
         *
         *     Requires the scope `auth.users.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        patch: operations["updateUser"];
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/users/{userId}/grants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a user's remembered consents (grants)
         * @description Requires the scope `auth.users.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["listUserGrants"];
        put?: never;
        post?: never;
        /**
         * Withdraw every consent of a user
         * @description Requires the scope `auth.users.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["revokeAllUserGrants"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/users/{userId}/grants/{grantId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Withdraw one of a user's consents
         * @description The next authorization of that application asks the user again; refresh tokens and opaque access tokens issued under the grant stop working, and the delegation tokens of the user's agents through that application are revoked.
         *
         *     Requires the scope `auth.users.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["revokeUserGrant"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/users/{userId}/passkeys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A user's passkeys
         * @description Requires the scope `auth.users.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["listUserPasskeys"];
        put?: never;
        post?: never;
        /**
         * Remove all of a user's passkeys and recovery codes
         * @description The recovery for a person who lost their devices: none of their passkeys or recovery codes signs in any more. Give them a password reset link or (passkey-only tenants) an enrolment link to enrol again.
         *
         *     Requires the scope `auth.users.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["deleteUserPasskeys"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/users/{userId}/passkeys/{credentialId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove one of a user's passkeys
         * @description Requires the scope `auth.users.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["deleteUserPasskey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/users/{userId}/passkeys/enrolment-link": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make a one-time passkey enrolment link for a user
         * @description The answer holds the link once; give it to the person out of band. Opening it lets them register a passkey without signing in (an account without a password on a passkey-only tenant); it works once, for a week at most. A new link replaces the user's older ones. 409 when the tenant has passkeys off.
         *
         *     Requires the scope `auth.users.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        post: operations["createPasskeyEnrolmentLink"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/users/{userId}/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set a user's password
         * @description Requires the scope `auth.users.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        put: operations["setUserPassword"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/users/{userId}/password-reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make a one-time password reset link for a user
         * @description The answer holds the link once; give it to the person out of band. It works once, until it expires, and ends the user's sign-in sessions when used. A new link replaces the user's older ones.
         *
         *     Requires the scope `auth.users.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        post: operations["createPasswordResetLink"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/users/{userId}/roles/{roleId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Assign a role to a user (idempotent)
         * @description A role on the management API needs every scope it grants (403 otherwise).
         *
         *     Requires the scope `auth.roles.assign`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        put: operations["assignRoleUser"];
        post?: never;
        /**
         * Remove a role from a user (idempotent)
         * @description A role on the management API needs every scope it grants, and removing any role needs every management scope the user holds (403 otherwise).
         *
         *     Requires the scope `auth.roles.assign`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["unassignRoleUser"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/users/{userId}/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a user's sign-in sessions
         * @description Requires the scope `auth.users.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["listUserSessions"];
        put?: never;
        post?: never;
        /**
         * Sign a user out everywhere (ends every session)
         * @description Ends every sign-in session of the user at this provider. Tokens already issued stay valid until they expire unless the grants are withdrawn as well (DELETE .../grants).
         *
         *     Requires the scope `auth.users.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["endAllUserSessions"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/users/{userId}/sessions/{sessionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * End one of a user's sessions (signs the user out of it)
         * @description Requires the scope `auth.users.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["endUserSession"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/users/{userId}/totp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Enrol a user in TOTP: returns the new secret once
         * @description Generates a 160-bit TOTP secret (RFC 6238: SHA-1, 6 digits, 30 s) and stores it sealed with the key-encryption key. The response is the only time the secret is shown: give it (or the otpauth URI, as a QR code) to the user. From now on the user signs in with password and code. 409 when the user is already enrolled: reset first to replace it.
         *
         *     Requires the scope `auth.users.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        post: operations["enrolUserTotp"];
        /**
         * Reset a user's TOTP enrolment
         * @description Removes the secret: the user signs in with the password alone until enrolled again (POST on this path).
         *
         *     Requires the scope `auth.users.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["resetUserTotp"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/users/{userId}/upstream-links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a user's linked upstream identities
         * @description Requires the scope `auth.users.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["listUserUpstreamLinks"];
        put?: never;
        /**
         * Link an upstream identity to a user (an administrator vouches for it)
         * @description Requires the scope `auth.users.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        post: operations["linkUserUpstreamIdentity"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/users/{userId}/upstream-links/{provider}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a user's links to an upstream provider
         * @description Requires the scope `auth.users.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["unlinkUserUpstreamIdentity"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/users/count": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Count users
         * @description Requires the scope `auth.users.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["countUsers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/workload-issuers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the trusted workload identity issuers (oldest first)
         * @description Requires the scope `auth.tenants.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["listWorkloadIssuers"];
        put?: never;
        /**
         * Trust a workload identity issuer
         * @description Requires the scope `auth.tenants.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        post: operations["createWorkloadIssuer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin/tenants/{tenantId}/workload-issuers/{issuerId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a trusted workload identity issuer
         * @description Requires the scope `auth.tenants.list`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        get: operations["getWorkloadIssuer"];
        put?: never;
        post?: never;
        /**
         * Stop trusting a workload identity issuer
         * @description Refused (409) while an NHE's workloadIdentity names the issuer: remove it from those NHEs first. Tokens already issued stay valid until they expire.
         *
         *     Requires the scope `auth.tenants.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        delete: operations["deleteWorkloadIssuer"];
        options?: never;
        head?: never;
        /**
         * Update a trusted workload identity issuer
         * @description Requires the scope `auth.tenants.update`.
         *
         *     A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.
         */
        patch: operations["updateWorkloadIssuer"];
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        AuditChainProblem: {
            fromSeq: number;
            jti?: string;
            /** @enum {string} */
            kind: "missing" | "altered" | "broken-link" | "truncated";
            toSeq: number;
        };
        AuditChainVerification: {
            /** @description Where retention pruned the chain up to */
            anchor: {
                hash: string;
                /** Format: date-time */
                prunedAt: string;
                seq: number;
            } | null;
            checked: number;
            firstSeq: number | null;
            /** @description Highest position ever written */
            headSeq: number;
            lastSeq: number | null;
            problems: components["schemas"]["AuditChainProblem"][];
            problemsTruncated: boolean;
            tenantId: number;
            valid: boolean;
        };
        Client: {
            backchannelClientNotificationEndpoint?: string;
            /** @enum {string} */
            backchannelTokenDeliveryMode?: "poll" | "ping";
            clientId: string;
            config: {
                customizeUserInfoClaims?: string;
                featureToggles: {
                    requireAuthorizationScopesInRequest: boolean;
                    requireResourceIndicatorInRequest: boolean;
                };
                legacyRoleCompatibility: boolean;
                nhe: {
                    allowedNheIdentifiers: string[];
                    delegationEnabled: boolean;
                    maxTokenLifetime?: number;
                };
            };
            /** Format: date-time */
            createdAt: string;
            dpopBoundAccessTokens: boolean;
            enabled: boolean;
            firstParty: boolean;
            grantTypes: string[];
            hasSecret: boolean;
            /** @enum {string} */
            idTokenSignedResponseAlg: "ES256" | "RS256";
            jwks?: {
                keys: {
                    [key: string]: unknown;
                }[];
            };
            name: string;
            numericId: number;
            /** @description Always true for a public client (tokenEndpointAuthMethod none) */
            pkceRequired: boolean;
            postLogoutRedirectUris: string[];
            redirectUris: string[];
            /**
             * @description `dynamic`: registered through RFC 7591 at {issuer}/reg (never first-party, no delegation, no roles of its own; only enabled and name change here, the rest through RFC 7592); `managed`: created through this API
             * @enum {string}
             */
            registration: "managed" | "dynamic";
            requirePushedAuthorizationRequests: boolean;
            responseTypes: string[];
            roleIds: string[];
            showLogoutPrompt: boolean;
            /** @enum {string} */
            tokenEndpointAuthMethod: "client_secret_basic" | "client_secret_post" | "private_key_jwt" | "none";
            /** Format: date-time */
            updatedAt: string;
        };
        ClientPage: {
            items: components["schemas"]["Client"][];
            nextCursor: string | null;
        };
        ClientSecret: {
            clientId: string;
            clientSecret: string;
        };
        ClientWithSecret: {
            backchannelClientNotificationEndpoint?: string;
            /** @enum {string} */
            backchannelTokenDeliveryMode?: "poll" | "ping";
            clientId: string;
            /** @description Shown once: store it now; only a digest is kept */
            clientSecret?: string;
            config: {
                customizeUserInfoClaims?: string;
                featureToggles: {
                    requireAuthorizationScopesInRequest: boolean;
                    requireResourceIndicatorInRequest: boolean;
                };
                legacyRoleCompatibility: boolean;
                nhe: {
                    allowedNheIdentifiers: string[];
                    delegationEnabled: boolean;
                    maxTokenLifetime?: number;
                };
            };
            /** Format: date-time */
            createdAt: string;
            dpopBoundAccessTokens: boolean;
            enabled: boolean;
            firstParty: boolean;
            grantTypes: string[];
            hasSecret: boolean;
            /** @enum {string} */
            idTokenSignedResponseAlg: "ES256" | "RS256";
            jwks?: {
                keys: {
                    [key: string]: unknown;
                }[];
            };
            name: string;
            numericId: number;
            /** @description Always true for a public client (tokenEndpointAuthMethod none) */
            pkceRequired: boolean;
            postLogoutRedirectUris: string[];
            redirectUris: string[];
            /**
             * @description `dynamic`: registered through RFC 7591 at {issuer}/reg (never first-party, no delegation, no roles of its own; only enabled and name change here, the rest through RFC 7592); `managed`: created through this API
             * @enum {string}
             */
            registration: "managed" | "dynamic";
            requirePushedAuthorizationRequests: boolean;
            responseTypes: string[];
            roleIds: string[];
            showLogoutPrompt: boolean;
            /** @enum {string} */
            tokenEndpointAuthMethod: "client_secret_basic" | "client_secret_post" | "private_key_jwt" | "none";
            /** Format: date-time */
            updatedAt: string;
        };
        Count: {
            count: number;
        };
        CustomClaimsScriptState: {
            clientId: string;
            /** @description Timeouts and memory failures in a row */
            consecutiveFailures: number;
            /** @description Whether the client has a customizeUserInfoClaims script (without one, the state is always closed) */
            hasScript: boolean;
            /** @description The last timeout or memory failure of this version of the script */
            lastError?: {
                /** Format: date-time */
                at: string;
                message: string;
                /** @description timeout, memory, threw, invalid_return, output_too_large, syntax, unavailable */
                reason: string;
            };
            /**
             * Format: date-time
             * @description When the breaker last opened (while not closed)
             */
            openedAt?: string;
            /**
             * Format: date-time
             * @description When the script is tried again (while open); in the past, the next call is the probe
             */
            retryAt?: string;
            /**
             * @description closed: the script runs. open: it is skipped (UserInfo answers without custom_claims) until retryAt. half_open: the next call runs as a probe that closes or reopens the breaker
             * @enum {string}
             */
            state: "closed" | "open" | "half_open";
            /**
             * Format: date-time
             * @description When oidc-core last recorded the state
             */
            updatedAt?: string;
        };
        DelegationDecision: {
            /**
             * @description How the actor was authenticated (a dry run assumes named)
             * @enum {string}
             */
            actorAuth: "named" | "key" | "workload";
            /** @description A delegation chain: each hop from the user, with the policies that allow it */
            chain?: {
                /** @description Actors in the new token's act chain */
                depth: number;
                hops: {
                    depth: number;
                    /** @description user:<id> for the first hop, nhe:<identifier> after */
                    from: string;
                    maxChainDepth: number;
                    policyIds: string[];
                    to: string;
                }[];
                /** @description The smallest of the tenant's ceiling and the maxChainDepth of every hop checked */
                maxDepth: number;
            };
            /** @enum {string} */
            outcome: "granted";
            policyIds: string[];
            removed: {
                layer: string;
                scope: string;
            }[];
            scopes: string[];
            /** @description Phishing-resistant delegation: the sign-in requirement in force and whether the sign-in met it (only when one applies) */
            signIn?: {
                /** @description The subject token's acr */
                acr?: string;
                /** @description Seconds since the sign-in (the subject token's auth_time) */
                ageSeconds?: number;
                /** @description The sign-in must be at most this many minutes old */
                maxAgeMinutes: number;
                met: boolean;
                /**
                 * @description A matching policy's own value, or the tenant's default
                 * @enum {string}
                 */
                setBy: "policy" | "tenant";
            };
            ttl: number;
            ttlSetBy: string;
            ttlTerms: {
                [key: string]: number;
            };
        } | {
            /** @description A delegation chain: each hop from the user, with the policies that allow it */
            chain?: {
                /** @description Actors in the new token's act chain */
                depth: number;
                hops: {
                    depth: number;
                    /** @description user:<id> for the first hop, nhe:<identifier> after */
                    from: string;
                    maxChainDepth: number;
                    policyIds: string[];
                    to: string;
                }[];
                /** @description The smallest of the tenant's ceiling and the maxChainDepth of every hop checked */
                maxDepth: number;
            };
            description: string;
            /** @enum {string} */
            error: "access_denied" | "invalid_grant" | "invalid_scope" | "invalid_target";
            gate: string;
            /** @enum {string} */
            outcome: "denied";
            scopes?: string[];
            /** @description Phishing-resistant delegation: the sign-in requirement in force and whether the sign-in met it (only when one applies) */
            signIn?: {
                /** @description The subject token's acr */
                acr?: string;
                /** @description Seconds since the sign-in (the subject token's auth_time) */
                ageSeconds?: number;
                /** @description The sign-in must be at most this many minutes old */
                maxAgeMinutes: number;
                met: boolean;
                /**
                 * @description A matching policy's own value, or the tenant's default
                 * @enum {string}
                 */
                setBy: "policy" | "tenant";
            };
        };
        DelegationPolicy: {
            allowedScopes: string[];
            /** @description Granted only with the person's approval (CIBA) */
            approvalRequiredScopes?: string[];
            /** Format: date-time */
            createdAt: string;
            id: string;
            maxChainDepth?: number;
            maxTokenLifetime?: number;
            nheId: string;
            /** @description Minutes; 0: not required by this policy; absent: the tenant's default */
            phishingResistantSignInMaxAgeMinutes?: number;
            target: {
                id: string;
                /** @enum {string} */
                type: "user" | "group" | "nhe";
            };
            /** Format: date-time */
            updatedAt: string;
        };
        DelegationPolicyPage: {
            items: components["schemas"]["DelegationPolicy"][];
            nextCursor: string | null;
        };
        DelegationSimulation: {
            decision: components["schemas"]["DelegationDecision"];
            /** Format: date-time */
            evaluatedAt: string;
            /**
             * @description agent-client: the client embodies this NHE (its agentClients), so the decision is that of its authorization-code or device-flow token
             * @enum {string}
             */
            flow: "token-exchange" | "agent-client";
            nheId: string;
            nheIdentifier: string;
            request: {
                /** @description client_id of the client that would exchange, or of an agent client of this NHE (a metadata document URL included) */
                clientId: string;
                /** @description Space-separated scopes the user consented to the client for this resource (the subject token's scope). Caps a third-party client's delegation (layer consent); omitted, a third-party client has none. Ignored for first-party clients. */
                consentedScope?: string;
                /** @description Simulates handing a delegation token on to this NHE (a delegation chain) instead of a user's token. The parent is assumed fresh, for the requested resource, each actor named; the decision explains each hop (decision.chain.hops). */
                parent?: {
                    /** @description The NHE identifiers of the subject token's act chain, outermost (the NHE that hands on) first */
                    actors: string[];
                    /** @description The subject token's scopes (space-separated) */
                    scope: string;
                };
                /** @description Resource server identifier */
                resource: string;
                /** @description Space-separated requested scopes */
                scope: string;
                /** @description The user's sign-in as the subject token would state it, for a policy or tenant that requires a recent phishing-resistant sign-in. Omitted (or a member omitted): the token states nothing, which never meets the requirement. The decision explains it (decision.signIn) */
                signIn?: {
                    /** @description The subject token's acr (phr, phrh: phishing-resistant) */
                    acr?: string;
                    /** @description Minutes since the user signed in (now minus the subject token's auth_time) */
                    ageMinutes?: number;
                };
                /** @description The delegating user (the subject token's sub) */
                userId: string;
            };
        };
        Ga4ghVisaAssertion: {
            /** @description When the source asserted it, seconds since the epoch */
            asserted: number;
            /** @enum {string} */
            by?: "self" | "peer" | "system" | "so" | "dac";
            /** @description Disjunction (outer list) of conjunctions (inner lists) */
            conditions?: {
                by?: string;
                source?: string;
                type: string;
                value?: string;
            }[][];
            /** @description Absolute URI of the organisation that asserted the visa */
            source: string;
            /** @description Visa type, e.g. ControlledAccessGrants, AffiliationAndRole, AcceptedTermsAndPolicies, ResearcherStatus, LinkedIdentities */
            type: string;
            value: string;
        };
        Group: {
            /** Format: date-time */
            createdAt: string;
            id: string;
            name: string;
            roleIds: string[];
            /** Format: date-time */
            updatedAt: string;
        };
        GroupPage: {
            items: components["schemas"]["Group"][];
            nextCursor: string | null;
        };
        IdJagAudience: {
            /** @description NHE identifiers of the agents that may obtain ID-JAGs for this audience */
            agents: string[];
            audience: string;
            clients: {
                clientId: string;
                clientIdAtAudience: string;
            }[];
            /** Format: date-time */
            createdAt: string;
            description?: string;
            enabled: boolean;
            id: string;
            lifetimeSeconds: number;
            resources: string[];
            scopes: string[];
            /** Format: date-time */
            updatedAt: string;
        };
        IdJagAudiencePage: {
            items: components["schemas"]["IdJagAudience"][];
            nextCursor: string | null;
        };
        InitialAccessToken: {
            /** Format: date-time */
            createdAt: string;
            description?: string;
            /** Format: date-time */
            expiresAt: string;
            id: string;
            maxUses: number;
            /** @description Registrations made with it so far */
            uses: number;
        };
        InitialAccessTokenList: {
            items: components["schemas"]["InitialAccessToken"][];
        };
        IssuedInitialAccessToken: {
            /** Format: date-time */
            createdAt: string;
            description?: string;
            /** Format: date-time */
            expiresAt: string;
            id: string;
            maxUses: number;
            /** @description Shown once: hand it to the client developer now; only a digest is kept */
            token: string;
            /** @description Registrations made with it so far */
            uses: number;
        };
        IssuedScimCredential: {
            /** Format: date-time */
            createdAt: string;
            description?: string;
            id: string;
            /**
             * Format: date-time
             * @description When the directory last authenticated with it
             */
            lastUsedAt?: string;
            /**
             * Format: date-time
             * @description Set once revoked: it is refused from then on
             */
            revokedAt?: string;
            /** @description The tenant's SCIM 2.0 base URL (the directory's Tenant URL / SCIM connector base URL) */
            scimBaseUrl: string;
            /** @description Shown once: paste it into the directory as the bearer token; only a digest is kept */
            secret: string;
        };
        Job: {
            /**
             * @description kubernetes: a CronJob kept in step; in-process: management schedules it
             * @enum {string}
             */
            backend: "kubernetes" | "in-process";
            customOptions: {
                [key: string]: unknown;
            };
            enabled: boolean;
            kubernetes?: components["schemas"]["JobKubernetesState"];
            lastRun: components["schemas"]["JobRun"];
            name: string;
            /** Format: date-time */
            nextRunAt: string | null;
            /** @description Five-field cron expression, UTC */
            schedule: string;
            /** @enum {string} */
            type: "NHE_AUDIT_RETENTION";
            /** Format: date-time */
            updatedAt?: string;
        };
        JobDrift: {
            /** @description What the CronJob holds */
            actual: string | boolean | null;
            /** Format: date-time */
            changedAt?: string;
            /** @description What the job says (suspend is the opposite of enabled) */
            expected: string | boolean;
            /**
             * @description The CronJob field (spec.schedule, spec.suspend)
             * @enum {string}
             */
            field: "schedule" | "suspend";
            /** @description The field manager that last wrote it (metadata.managedFields), e.g. kubectl-edit or helm */
            manager?: string;
        };
        /** @description Kubernetes backend only: the CronJob read back from the API server */
        JobKubernetesState: {
            cronJob: string;
            /** @description Where the CronJob differs from the job (changed outside the jobs API); empty when in step */
            drift: components["schemas"]["JobDrift"][];
            /** @description The CronJob's spec.schedule as the API server holds it */
            schedule?: string;
            /** @description The CronJob's spec.suspend */
            suspend: boolean;
        } | {
            cronJob: string;
            /** @description The CronJob could not be read; drift unknown */
            error: string;
        };
        JobList: {
            items: components["schemas"]["Job"][];
        };
        JobRun: {
            deleted: number;
            dryRun: boolean;
            error?: string;
            /** Format: date-time */
            finishedAt?: string;
            id: string;
            jobName: string;
            /** Format: date-time */
            startedAt: string;
            /** @enum {string} */
            status: "running" | "succeeded" | "failed" | "interrupted";
            tenants: components["schemas"]["JobRunTenantCount"][];
            /** @enum {string} */
            trigger: "schedule" | "manual" | "cli";
        } | null;
        JobRunList: {
            items: components["schemas"]["JobRun"][];
        };
        JobRunStarted: {
            /** @enum {string} */
            backend: "kubernetes" | "in-process";
            kubernetesJob?: string;
            pid?: number;
        };
        JobRunTenantCount: {
            batches: number;
            capped: boolean;
            /** Format: date-time */
            cutoff?: string;
            deleted: number;
            durationMs: number;
            reason?: string;
            /** @enum {string} */
            status: "pruned" | "dry-run" | "skipped" | "failed";
            tenantId: number;
        };
        Nhe: {
            agentClients: string[];
            allowedScopes: string[];
            /** Format: date-time */
            createdAt: string;
            enabled: boolean;
            id: string;
            identifier: string;
            jwks?: {
                keys: {
                    [key: string]: unknown;
                }[];
            };
            jwksUri?: string;
            maxTokenLifetime: number;
            model?: {
                name?: string;
                provider?: string;
                version?: string;
            };
            operator: string;
            requireActorProof: boolean | null;
            requireKeyBoundDpop: boolean;
            type: string;
            /** Format: date-time */
            updatedAt: string;
            workloadIdentity?: {
                issuer: string;
                subject: string;
            };
        };
        NhePage: {
            items: components["schemas"]["Nhe"][];
            nextCursor: string | null;
        };
        PasskeyEnrolmentLink: {
            /** Format: date-time */
            expiresAt: string;
            path: string;
            url?: string;
        };
        PasswordResetLink: {
            /** Format: date-time */
            expiresAt: string;
            /** @description The link's path under the public origin */
            path: string;
            /** @description The whole link, when the public origin is configured */
            url?: string;
        };
        /** @description RFC 9457 problem details */
        Problem: {
            detail?: string;
            instance?: string;
            /** @description validation-error: every failing field path */
            invalid_params?: {
                name: string;
                reason: string;
            }[];
            /** @description limit-exceeded: the limit that was reached */
            limit?: {
                name: string;
                value: number;
            };
            /** @description forbidden: the missing scope */
            required_scope?: string;
            status: number;
            title: string;
            /** @enum {string} */
            type: "https://idp.dev/problems/validation-error" | "https://idp.dev/problems/unauthorized" | "https://idp.dev/problems/forbidden" | "https://idp.dev/problems/not-found" | "https://idp.dev/problems/method-not-allowed" | "https://idp.dev/problems/conflict" | "https://idp.dev/problems/limit-exceeded" | "https://idp.dev/problems/payload-too-large" | "https://idp.dev/problems/unsupported-media-type" | "https://idp.dev/problems/service-unavailable" | "https://idp.dev/problems/internal-error";
        };
        ResourceServer: {
            config: {
                accessToken: {
                    lifetime: number;
                };
                nhe: {
                    acceptDelegationTokens: boolean;
                    allowedNheTypes: string[];
                    requireDelegationTokens: boolean;
                };
            };
            /** Format: date-time */
            createdAt: string;
            id: string;
            identifier: string;
            /** @description client_ids that may introspect this API's access tokens besides the token's own client (empty when none) */
            introspectionClientIds: string[];
            /** @description URL of the API's RFC 9728 Protected Resource Metadata (null when not recorded) */
            metadataUrl: string | null;
            name: string;
            /** @description Scope → what the consent page says for it (empty when none) */
            scopeDescriptions: {
                [key: string]: string;
            };
            scopes: string[];
            /** Format: date-time */
            updatedAt: string;
        };
        ResourceServerPage: {
            items: components["schemas"]["ResourceServer"][];
            nextCursor: string | null;
        };
        Role: {
            /** Format: date-time */
            createdAt: string;
            id: string;
            name: string;
            permissions: string[];
            resourceServer: string;
            /** Format: date-time */
            updatedAt: string;
        };
        RolePage: {
            items: components["schemas"]["Role"][];
            nextCursor: string | null;
        };
        ScimCredential: {
            /** Format: date-time */
            createdAt: string;
            description?: string;
            id: string;
            /**
             * Format: date-time
             * @description When the directory last authenticated with it
             */
            lastUsedAt?: string;
            /**
             * Format: date-time
             * @description Set once revoked: it is refused from then on
             */
            revokedAt?: string;
        };
        ScimCredentialList: {
            items: components["schemas"]["ScimCredential"][];
        };
        SigningKey: {
            /** @enum {string} */
            alg: "ES256" | "RS256";
            /** Format: date-time */
            createdAt: string;
            kid: string;
            publicJwk: {
                [key: string]: unknown;
            };
            /**
             * Format: date-time
             * @description A retired key stays in the JWKS until then
             */
            publishUntil?: string;
            /** Format: date-time */
            retiredAt?: string;
            /** @enum {string} */
            status: "active" | "retired";
        };
        SigningKeyList: {
            items: components["schemas"]["SigningKey"][];
        };
        SsfStream: {
            /** @description The receiver: the client that created the stream */
            clientId: string;
            /** Format: date-time */
            createdAt?: string;
            /** @enum {string} */
            delivery: "push" | "poll" | "unknown";
            description?: string;
            /** @description Push: where the events go */
            endpointUrl?: string;
            eventsRequested: string[];
            id: string;
            /**
             * Format: date-time
             * @description The receiver's last request about the stream (poll streams)
             */
            lastActivityAt?: string;
            /** @description Events not yet acknowledged or delivered */
            pendingEvents: number;
            pushFailures?: number;
            reason?: string;
            /** @description enabled, paused or disabled (SSF 1.0 section 8.1.2) */
            status: string;
        };
        Tenant: {
            /** Format: date-time */
            createdAt: string;
            /** @description false: the tenant is disabled. Its authorization, token, UserInfo, discovery, JWKS, device and registration endpoints and its sign-in and account pages answer 403 (access_denied, "tenant disabled"); introspection answers active false for every token (RFC 7662 section 2.2); the delegation sidecar exchanges no token; its own administrators' management tokens are refused. Revocation still works. The platform's (system-tenant) administrators keep managing it. true again restores everything; nothing is deleted. The system tenant cannot be disabled. Default true. */
            enabled: boolean;
            id: number;
            name: string;
            settings: {
                /** @description Human approval of agents (OpenID CIBA Core 1.0, poll and ping, with RFC 9396 authorization details of type urn:idp:agent-action). `enabled` (default false): {issuer}/backchannel accepts backchannel authentication requests from clients with the grant type urn:openid:params:grant-type:ciba; the person answers on {issuer}/account/agents; the token is an NHE delegation token decided, minted and audited like a token exchange. `requestLifetimeSeconds` (default 300): how long a request waits for the person. `maxPendingPerUser` (default 5): undecided requests one person may have; one more is refused. `maxPendingPerClient` (default 100): undecided requests one client may have over all the people it asks; one more is refused. `pollIntervalSeconds` (default 5): the `interval` clients must keep; faster polls are answered slow_down. `approvalMaxAuthAgeSeconds` (absent: any sign-in): approving needs a sign-in no older than this. Not available to the system tenant. */
                backchannelAuthentication: {
                    approvalMaxAuthAgeSeconds: number | null;
                    enabled: boolean;
                    maxPendingPerClient: number;
                    maxPendingPerUser: number;
                    pollIntervalSeconds: number;
                    requestLifetimeSeconds: number;
                };
                claims: {
                    /** @enum {string} */
                    amrProfile: "rfc8176" | "projected";
                    ga4ghPassport: {
                        enabled: boolean;
                        visaLifetimeSeconds: number;
                    };
                };
                /** @description Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a client_id that is an https URL is resolved by fetching that document (SSRF-safe: no private, loopback, link-local or metadata addresses, the resolved address is the one connected to, no redirects, size cap, 1 s to connect and 2.5 s in all; a few fetches per tenant at once, failures remembered for 30 s), cached within cacheMaxSeconds, validated (client_id equals the URL; token_endpoint_auth_method none, or private_key_jwt with jwks_uri; no secrets; RFC 8252 redirect URIs for native clients, https otherwise). Such a client is always a third party: consent page with the document's name and the URL's host, no delegation, no management or SSF tokens. Off by default; not available to the system tenant. */
                clientIdMetadataDocuments: {
                    allowedHosts: string[];
                    cacheMaxSeconds: number;
                    enabled: boolean;
                    maxDocumentBytes: number;
                };
                nhe: {
                    allowedNheTypes: string[];
                    auditRetentionDays: number;
                    defaultMaxTokenLifetime: number;
                    enabled: boolean;
                    hardMaxTokenLifetime: number;
                    maxChainDepth: number;
                    maxNhePerTenant: number;
                    phishingResistantSignInMaxAgeMinutes: number;
                    requireActorProof: boolean;
                    requireDpop: boolean;
                };
                /** @description OpenID Connect Dynamic OP profile (OpenID Connect Core 1.0 section 15.2; what the OpenID Foundation Dynamic OP certification tests), off by default. enabled true adds: signed request objects by value and by reference (request, request_uri; RFC 9101; verified with the client's registered keys, asymmetric algorithms only; request_uri fetched through the same SSRF-safe, rate-bounded outbound layer as metadata documents), signed UserInfo for clients that register userinfo_signed_response_alg (ES256, RS256), the id_token and `id_token token` response types for clients that register them (discouraged by RFC 9700; never for agent clients), and for a dynamically registered confidential client the choice to register without PKCE (org.vendor.require_pkce false, its default there; public clients always use PKCE). Registration itself is settings.registration. Not available with the fapi2 security profile or to the system tenant. */
                openidDynamicProfile: {
                    enabled: boolean;
                };
                /** @description WebAuthn passkeys. `enabled` (default false): the login page offers "Sign in with a passkey" and browser autofill (conditional mediation), users enrol passkeys at {issuer}/account/passkeys. `rpId`: the WebAuthn RP ID, default the host of the tenant's public base URL; it cannot change once a passkey is enrolled. `passkeyOnly`: the login page offers only passkeys and recovery codes (accounts are set up with one-time enrolment links). `userVerification` (default required), `attestation` (default none: the acr phrh is then never issued). `confirmAgentConsent`: the consent page of an agent client asks a user who has a passkey to confirm with it. */
                passkeys: {
                    /** @enum {string} */
                    attestation: "none" | "direct";
                    confirmAgentConsent: boolean;
                    enabled: boolean;
                    passkeyOnly: boolean;
                    rpId: string | null;
                    /** @enum {string} */
                    userVerification: "required" | "preferred";
                };
                /** @description Dynamic Client Registration (RFC 7591, with RFC 7592 read/update/delete by registration access token) at {issuer}/reg. mode `off` (default): no endpoint. `initial-access-token`: a registration needs a token issued by POST /tenants/{tenantId}/initial-access-tokens. `open`: anyone who can reach the endpoint registers clients; WARNING: for development only. Registered clients get only the grant types and authentication methods listed here (never a shared secret or token exchange; client_credentials only with private_key_jwt, RFC 6749 section 4.4), RFC 8252 redirect URIs for native clients and exact https otherwise; they are marked registration "dynamic", never first-party, without delegation or roles. Not available to the system tenant. */
                registration: {
                    grantTypes: string[];
                    /** @enum {string} */
                    mode: "off" | "initial-access-token" | "open";
                    rateLimit: {
                        maxPerWindow: number;
                        windowSeconds: number;
                    };
                    tokenEndpointAuthMethods: string[];
                };
                security: {
                    /**
                     * @description `standard` (default): OpenID Connect and OAuth as every tenant has them. `fapi2`: FAPI 2.0 Security Profile: pushed authorization requests required (with redirect_uri), every access and refresh token DPoP-bound, client authentication by private_key_jwt only (assertion aud exactly the issuer; PS256, ES256 or EdDSA), PKCE S256, ES256 ID tokens; other clients of the tenant get invalid_client. Not available to the system tenant.
                     * @enum {string}
                     */
                    profile: "standard" | "fapi2";
                };
            };
            system: boolean;
            /** Format: date-time */
            updatedAt: string;
        };
        TenantPage: {
            items: components["schemas"]["Tenant"][];
            nextCursor: string | null;
        };
        TokenAuditDelegationChain: {
            /** @description jti values a row names as its parent without a row (pruned by retention, or not yet written) */
            missingParents: string[];
            /** @description The first delegation token of the chain (exchanged from the user's token) */
            rootJti: string;
            /** @description Every issuance of the chain that is still recorded, root first, then by depth and time (at most 1000) */
            tokens: components["schemas"]["TokenAuditRecord"][];
            /** @description More issuances exist than were returned */
            truncated: boolean;
        };
        TokenAuditHistogram: {
            bucketSeconds: number;
            /**
             * Format: date-time
             * @description Start of the first bucket (the window start rounded down to a bucket boundary)
             */
            from: string;
            /** @description One series per NHE that was issued a token in the window, most tokens first */
            series: {
                /** @description Tokens issued in each bucket, oldest bucket first */
                counts: number[];
                nheIdentifier: string;
                total: number;
            }[];
            /**
             * Format: date-time
             * @description End of the last bucket (the window end rounded up to a bucket boundary)
             */
            to: string;
            /** @description Tokens counted in the window */
            total: number;
            /** @description More than 50000 tokens were issued in the window: the counts cover the 50000 issued first only */
            truncated: boolean;
        };
        TokenAuditPage: {
            items: components["schemas"]["TokenAuditRecord"][];
            nextCursor: string | null;
        };
        TokenAuditRecord: {
            /** @description How the actor was authenticated (rows written before actor proofs existed: named) */
            actorAuthentication: {
                /** @description workload: the trusted issuer */
                issuer?: string;
                /** @description key: thumbprint (RFC 7638) of the NHE key that verified the actor token */
                jkt?: string;
                /** @description key, workload: the actor token's jti */
                jti?: string;
                /**
                 * @description named: the spec's nhe-id actor token (no proof); key: a JWT signed by one of the NHE's keys; workload: a JWT of a trusted workload issuer
                 * @enum {string}
                 */
                method: "named" | "key" | "workload";
                /** @description workload: the workload's subject */
                subject?: string;
            };
            /** @description With parentJti: every actor of the token's act chain, outermost (this token's NHE) first, and how each proved who it is */
            actorChain?: {
                /** @enum {string} */
                method: "named" | "key" | "workload";
                nheIdentifier: string;
            }[];
            clientId: string;
            clientNumericId: number;
            /** @description The token crossed an organisation boundary: issued, an identity assertion (ID-JAG) this tenant issued for the authorization server peer; redeemed, minted from an assertion of the trusted issuer peer, with that assertion's jti, sub and act.sub */
            crossDomain?: {
                actor?: string;
                /** @description redeemed: every actor of the assertion's act chain at its issuer, outermost (actor) first */
                actors?: string[];
                assertionJti?: string;
                /** @enum {string} */
                direction: "issued" | "redeemed";
                peer: string;
                subject?: string;
            };
            dpopJkt?: string;
            id: string;
            /** Format: date-time */
            issuedAt: string;
            jti: string;
            nheId: string;
            nheIdentifier: string;
            /** @description The token was exchanged from this delegation token (a delegation chain) */
            parentJti?: string;
            resourceServer: string;
            scopes: string[];
            sourceIp: string;
            ttl: number;
            userId: string;
        };
        TokenRefusalHistogram: {
            bucketSeconds: number;
            /**
             * Format: date-time
             * @description Start of the first bucket (the window start rounded down to a bucket boundary)
             */
            from: string;
            /** @description One series per error code refused in the window, most refusals first */
            series: {
                /** @description Refusals in each bucket, oldest bucket first */
                counts: number[];
                /** @description The OAuth error code answered (access_denied, invalid_scope, invalid_grant, ...) */
                error: string;
                /** @description Where the refusals happened: the gate of the decision or the stage of the request, most first */
                gates: {
                    gate: string;
                    total: number;
                }[];
                total: number;
            }[];
            /**
             * Format: date-time
             * @description End of the last bucket (the window end rounded up to a bucket boundary)
             */
            to: string;
            /** @description Refusals counted in the window */
            total: number;
            /** @description More than 50000 hourly counters in the window: the counts cover the oldest ones only */
            truncated: boolean;
        };
        TotpEnrolment: {
            /** @enum {string} */
            algorithm: "SHA1";
            /** @enum {number} */
            digits: 6;
            /** @description otpauth://totp/... Key URI for authenticator apps (QR code) */
            otpauthUri: string;
            /** @enum {number} */
            period: 30;
            /** @description Base32 shared secret (RFC 4648, unpadded) */
            secret: string;
        };
        TrustedIssuer: {
            actors: {
                nheIdentifier: string;
                subject: string;
            }[];
            algorithms: string[];
            allowAct: boolean;
            allowReuse: boolean;
            audiences: string[];
            /** Format: date-time */
            createdAt: string;
            description?: string;
            enabled: boolean;
            id: string;
            issuer: string;
            jitProvisioning: boolean;
            jwksUri: string;
            maxLifetimeSeconds: number;
            /** @description The subscription to the issuer’s Shared Signals transmitter, when there is one */
            signals?: {
                clientId: string;
                /** @description Whether a client secret is stored (it is never returned) */
                clientSecretSet: boolean;
                enabled: boolean;
                pollIntervalSeconds: number;
            };
            subjectClaim?: string;
            /** @enum {string} */
            subjectMapping: "linked_identity" | "user_id" | "username_claim";
            /** Format: date-time */
            updatedAt: string;
            upstreamProvider?: string;
        };
        TrustedIssuerPage: {
            items: components["schemas"]["TrustedIssuer"][];
            nextCursor: string | null;
        };
        UpstreamLink: {
            /** Format: date-time */
            createdAt: string;
            /** @description Empty until the first sign-in for a link an administrator made to a SAML IdP */
            issuer: string;
            /** Format: date-time */
            lastSignInAt?: string;
            /** @enum {string} */
            linkedBy: "jit" | "password" | "verified_email" | "admin";
            /** @description The provider's alias */
            provider: string;
            /** @description The upstream subject */
            subject: string;
        };
        UpstreamMapper: {
            /** @description customClaims and claim targets: the name written */
            claim?: string;
            /** @description Upstream claim (dot path into nested objects) or SAML attribute name; `*` for every claim */
            source: string;
            /** @enum {string} */
            target: "externalGroups" | "providerClaims" | "identityProvider" | "customClaims" | "claim" | "username" | "groups" | "roles";
            /** @description groups and roles targets: upstream value → local group or role name */
            values?: {
                local: string;
                upstream: string;
            }[];
        };
        UpstreamProvider: {
            /** @description Upstream acr (SAML AuthnContextClassRef) → acr here; unmapped: urn:idp:acr:federated, which meets no requirement */
            acrMap: {
                /** @enum {string} */
                acr: "urn:idp:acr:pwd" | "urn:idp:acr:mfa";
                upstream: string;
            }[];
            alias: string;
            /** @description Upstream amr value → amr values recorded here; unmapped values record nothing */
            amrMap: {
                amr: ("pwd" | "otp" | "hwk" | "swk" | "sc" | "mfa")[];
                upstream: string;
            }[];
            authoritativeEmailDomains: string[];
            /** Format: date-time */
            createdAt: string;
            displayName: string;
            emailDomains: string[];
            enabled: boolean;
            /** @description What to register at the upstream provider */
            endpoints: {
                /** @description SAML: our assertion consumer service (HTTP-POST) */
                acsUrl?: string;
                /** @description OIDC private_key_jwt: our public keys, for the OP */
                jwksUri?: string;
                /** @description OIDC: register this post-logout redirect URI at the OP */
                postLogoutRedirectUri?: string;
                /** @description OIDC: register this redirect URI at the OP */
                redirectUri?: string;
                /** @description SAML: our single logout service (HTTP-Redirect) */
                sloUrl?: string;
                /** @description SAML: our SP metadata, for the IdP */
                spMetadataUrl?: string;
            };
            exclusive: boolean;
            jitProvisioning: boolean;
            mappers: components["schemas"]["UpstreamMapper"][];
            oidc?: {
                acrValues?: string[];
                authorizationEndpoint?: string;
                /** @enum {string} */
                clientAuthMethod: "client_secret_basic" | "client_secret_post" | "private_key_jwt";
                clientId: string;
                /** @description Whether a client secret is stored (it is never returned) */
                clientSecretSet: boolean;
                discoveryUrl?: string;
                endSessionEndpoint?: string;
                fetchUserinfo: boolean;
                issuer: string;
                jwksUri?: string;
                pkce: boolean;
                scopes: string[];
                subjectClaim: string;
                tokenEndpoint?: string;
                userinfoEndpoint?: string;
            };
            saml?: {
                metadataUrl?: string;
                metadataXml?: string;
                nameIdFormat?: string;
                signAuthnRequests: boolean;
                /** @description Our SP signing certificate (PEM), also in our SP metadata */
                spCertificate?: string;
                spEntityId: string;
            };
            /** @enum {string} */
            type: "oidc" | "saml";
            /** Format: date-time */
            updatedAt: string;
        };
        UpstreamProviderPage: {
            items: components["schemas"]["UpstreamProvider"][];
            nextCursor: string | null;
        };
        User: {
            claims: {
                [key: string]: unknown;
            };
            /** Format: date-time */
            createdAt: string;
            customClaims?: {
                [key: string]: unknown;
            };
            enabled: boolean;
            externalGroups?: string[];
            /** @description The directory's identifier of the person (SCIM externalId) */
            externalId?: string;
            federatedIdentities?: {
                [key: string]: unknown;
            }[];
            ga4ghVisas?: {
                asserted: number;
                by?: string;
                conditions?: unknown;
                source: string;
                type: string;
                value: string;
            }[];
            groupIds: string[];
            id: string;
            identityProvider?: string;
            linkedIdentity?: {
                provider: string;
                subject: string;
            };
            /**
             * @description scim: provisioned by the tenant's directory (SCIM 2.0), which owns its username, profile and enabled state
             * @enum {string}
             */
            managedBy?: "scim";
            providerClaims?: {
                [key: string]: unknown;
            };
            roleIds: string[];
            totpEnrolled: boolean;
            /** Format: date-time */
            updatedAt: string;
            username: string;
        };
        UserGrant: {
            clientId: string;
            /** Format: date-time */
            createdAt?: string;
            /** Format: date-time */
            expiresAt?: string;
            /** @description The grant's id */
            id: string;
            /** @description API scopes consented to, per resource */
            resources: {
                resource: string;
                scopes: string[];
            }[];
            /** @description OpenID scopes consented to */
            scopes: string[];
        };
        UserPage: {
            items: components["schemas"]["User"][];
            nextCursor: string | null;
        };
        UserPasskey: {
            aaguid: string;
            /** @description Only then can a device-bound passkey reach acr phrh */
            attestationVerified: boolean;
            backedUp: boolean;
            /** Format: date-time */
            createdAt: string;
            /** @description WebAuthn credential ID (base64url) */
            credentialId: string;
            /**
             * @description singleDevice: bound to one authenticator (amr hwk); multiDevice: may be synced (amr swk)
             * @enum {string}
             */
            deviceType: "singleDevice" | "multiDevice";
            /** Format: date-time */
            lastUsedAt?: string;
            name: string;
            transports: string[];
        };
        UserPasskeyList: {
            items: components["schemas"]["UserPasskey"][];
            recoveryCodesLeft: number;
        };
        UserSession: {
            acr?: string;
            amr?: string[];
            /** @description The applications this session signed the user in to (client ids) */
            clients: string[];
            /** Format: date-time */
            expiresAt?: string;
            /** @description The session's id (not its cookie value) */
            id: string;
            /**
             * Format: date-time
             * @description When the user last authenticated in this session
             */
            signedInAt?: string;
        };
        WorkloadIssuer: {
            /** Format: date-time */
            createdAt: string;
            description?: string;
            enabled: boolean;
            id: string;
            issuer: string;
            jwksUri: string;
            /** Format: date-time */
            updatedAt: string;
        };
        WorkloadIssuerPage: {
            items: components["schemas"]["WorkloadIssuer"][];
            nextCursor: string | null;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listJobs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The jobs */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobList"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Job"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description nhe-audit-retention: { batchSize: 1..100000 } */
                    customOptions?: {
                        [key: string]: unknown;
                    };
                    enabled?: boolean;
                    /** @description Kubernetes: overwrite CronJob fields changed outside the jobs API (drift). Without it, a patch that would overwrite them is refused (409, listing them in `drift`) */
                    force?: boolean;
                    schedule?: string;
                };
            };
        };
        responses: {
            /** @description The updated job */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Job"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency could not confirm the change (`service-unavailable`); retrying the request is safe */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    runJobNow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The run was started */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobRunStarted"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency could not confirm the change (`service-unavailable`); retrying the request is safe */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listJobRuns: {
        parameters: {
            query?: {
                /** @description Runs started before this instant (paging) */
                before?: string;
                limit?: number;
            };
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Runs */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobRunList"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getJobRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
                runId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The run */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobRun"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getOpenApiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        openapi: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listTenants: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
                namePrefix?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of tenants */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TenantPage"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createTenant: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Numeric tenant id; allocated when absent */
                    id?: number;
                    name: string;
                    settings?: {
                        /** @description Human approval of agents (OpenID CIBA Core 1.0, poll and ping, with RFC 9396 authorization details of type urn:idp:agent-action). `enabled` (default false): {issuer}/backchannel accepts backchannel authentication requests from clients with the grant type urn:openid:params:grant-type:ciba; the person answers on {issuer}/account/agents; the token is an NHE delegation token decided, minted and audited like a token exchange. `requestLifetimeSeconds` (default 300): how long a request waits for the person. `maxPendingPerUser` (default 5): undecided requests one person may have; one more is refused. `maxPendingPerClient` (default 100): undecided requests one client may have over all the people it asks; one more is refused. `pollIntervalSeconds` (default 5): the `interval` clients must keep; faster polls are answered slow_down. `approvalMaxAuthAgeSeconds` (absent: any sign-in): approving needs a sign-in no older than this. Not available to the system tenant. */
                        backchannelAuthentication?: {
                            /** @description null: any sign-in */
                            approvalMaxAuthAgeSeconds?: number | null;
                            enabled?: boolean;
                            maxPendingPerClient?: number;
                            maxPendingPerUser?: number;
                            pollIntervalSeconds?: number;
                            requestLifetimeSeconds?: number;
                        };
                        claims?: {
                            /** @enum {string} */
                            amrProfile?: "rfc8176" | "projected";
                            ga4ghPassport?: {
                                enabled?: boolean;
                                visaLifetimeSeconds?: number;
                            };
                        };
                        /** @description Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a client_id that is an https URL is resolved by fetching that document (SSRF-safe: no private, loopback, link-local or metadata addresses, the resolved address is the one connected to, no redirects, size cap, 1 s to connect and 2.5 s in all; a few fetches per tenant at once, failures remembered for 30 s), cached within cacheMaxSeconds, validated (client_id equals the URL; token_endpoint_auth_method none, or private_key_jwt with jwks_uri; no secrets; RFC 8252 redirect URIs for native clients, https otherwise). Such a client is always a third party: consent page with the document's name and the URL's host, no delegation, no management or SSF tokens. Off by default; not available to the system tenant. */
                        clientIdMetadataDocuments?: {
                            /** @description Hosts documents may come from (exact names, or *.example.com for any name below example.com); empty: any public host */
                            allowedHosts?: string[];
                            /** @description Not a tenant setting: only false is accepted (and changes nothing). Whether documents and key sets on loopback hosts are fetched is the operator's choice for the whole platform (oidc-core's CIMD_ALLOW_LOOPBACK, development only) */
                            allowLoopback?: boolean;
                            /** @description Longest a document is cached, whatever its Cache-Control says; default 3600 */
                            cacheMaxSeconds?: number;
                            enabled?: boolean;
                            /** @description Largest document accepted; default 5120 */
                            maxDocumentBytes?: number;
                        };
                        nhe?: {
                            allowedNheTypes?: ("llm-autonomous" | "llm-assistive" | "automated-pipeline")[];
                            /** @description 0 disables pruning */
                            auditRetentionDays?: number;
                            defaultMaxTokenLifetime?: number;
                            enabled?: boolean;
                            hardMaxTokenLifetime?: number;
                            /** @description Deepest delegation chain (actors nested in act) a token of this tenant may carry; the ceiling over every delegation policy's maxChainDepth. Default 1: an NHE token is not a valid subject_token (no re-delegation). 2 to 5: an NHE token may be exchanged for another NHE's token (RFC 8693 section 4.1 nested act) where policies allow it */
                            maxChainDepth?: number;
                            /** @description Only system-tenant administrators may change it (a platform quota) */
                            maxNhePerTenant?: number;
                            /** @description Phishing-resistant delegation, the default of delegation policies without their own: token exchange needs a subject_token from a phishing-resistant sign-in (acr phr or phrh, a passkey) whose auth_time is at most this many minutes old, else access_denied. Default 0: no requirement. Applies to user and group policies (a hand-on is bounded by its parent) */
                            phishingResistantSignInMaxAgeMinutes?: number;
                            /** @description Token exchange needs an actor JWT (actor_token_type urn:ietf:params:oauth:token-type:jwt) proving the NHE; default false (the nhe-id actor token is enough). An NHE's own requireActorProof overrides it */
                            requireActorProof?: boolean;
                            requireDpop?: boolean;
                        };
                        /** @description OpenID Connect Dynamic OP profile (OpenID Connect Core 1.0 section 15.2; what the OpenID Foundation Dynamic OP certification tests), off by default. enabled true adds: signed request objects by value and by reference (request, request_uri; RFC 9101; verified with the client's registered keys, asymmetric algorithms only; request_uri fetched through the same SSRF-safe, rate-bounded outbound layer as metadata documents), signed UserInfo for clients that register userinfo_signed_response_alg (ES256, RS256), the id_token and `id_token token` response types for clients that register them (discouraged by RFC 9700; never for agent clients), and for a dynamically registered confidential client the choice to register without PKCE (org.vendor.require_pkce false, its default there; public clients always use PKCE). Registration itself is settings.registration. Not available with the fapi2 security profile or to the system tenant. */
                        openidDynamicProfile?: {
                            enabled?: boolean;
                        };
                        /** @description WebAuthn passkeys. `enabled` (default false): the login page offers "Sign in with a passkey" and browser autofill (conditional mediation), users enrol passkeys at {issuer}/account/passkeys. `rpId`: the WebAuthn RP ID, default the host of the tenant's public base URL; it cannot change once a passkey is enrolled. `passkeyOnly`: the login page offers only passkeys and recovery codes (accounts are set up with one-time enrolment links). `userVerification` (default required), `attestation` (default none: the acr phrh is then never issued). `confirmAgentConsent`: the consent page of an agent client asks a user who has a passkey to confirm with it. */
                        passkeys?: {
                            /** @enum {string} */
                            attestation?: "none" | "direct";
                            confirmAgentConsent?: boolean;
                            enabled?: boolean;
                            passkeyOnly?: boolean;
                            /** @description null: the host of the tenant's public base URL */
                            rpId?: string | null;
                            /** @enum {string} */
                            userVerification?: "required" | "preferred";
                        };
                        /** @description Dynamic Client Registration (RFC 7591, with RFC 7592 read/update/delete by registration access token) at {issuer}/reg. mode `off` (default): no endpoint. `initial-access-token`: a registration needs a token issued by POST /tenants/{tenantId}/initial-access-tokens. `open`: anyone who can reach the endpoint registers clients; WARNING: for development only. Registered clients get only the grant types and authentication methods listed here (never a shared secret or token exchange; client_credentials only with private_key_jwt, RFC 6749 section 4.4), RFC 8252 redirect URIs for native clients and exact https otherwise; they are marked registration "dynamic", never first-party, without delegation or roles. Not available to the system tenant. */
                        registration?: {
                            /** @description Grant types a registered client may have; default authorization_code, refresh_token */
                            grantTypes?: ("authorization_code" | "refresh_token" | "client_credentials" | "urn:ietf:params:oauth:grant-type:device_code")[];
                            /** @enum {string} */
                            mode?: "off" | "initial-access-token" | "open";
                            /** @description Registration attempts per source address and window, counted across replicas; default 10 per 3600 s */
                            rateLimit?: {
                                maxPerWindow?: number;
                                windowSeconds?: number;
                            };
                            /** @description Default none, private_key_jwt */
                            tokenEndpointAuthMethods?: ("none" | "private_key_jwt")[];
                        };
                        security?: {
                            /**
                             * @description `standard` (default): OpenID Connect and OAuth as every tenant has them. `fapi2`: FAPI 2.0 Security Profile: pushed authorization requests required (with redirect_uri), every access and refresh token DPoP-bound, client authentication by private_key_jwt only (assertion aud exactly the issuer; PS256, ES256 or EdDSA), PKCE S256, ES256 ID tokens; other clients of the tenant get invalid_client. Not available to the system tenant.
                             * @enum {string}
                             */
                            profile?: "standard" | "fapi2";
                        };
                    };
                };
            };
        };
        responses: {
            /** @description The tenant */
            201: {
                headers: {
                    /** @description URL of the tenant */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Tenant"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getTenant: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tenant */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Tenant"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteTenant: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateTenant: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description false: the tenant is disabled. Its authorization, token, UserInfo, discovery, JWKS, device and registration endpoints and its sign-in and account pages answer 403 (access_denied, "tenant disabled"); introspection answers active false for every token (RFC 7662 section 2.2); the delegation sidecar exchanges no token; its own administrators' management tokens are refused. Revocation still works. The platform's (system-tenant) administrators keep managing it. true again restores everything; nothing is deleted. The system tenant cannot be disabled. Default true. */
                    enabled?: boolean;
                    name?: string;
                    settings?: {
                        /** @description Human approval of agents (OpenID CIBA Core 1.0, poll and ping, with RFC 9396 authorization details of type urn:idp:agent-action). `enabled` (default false): {issuer}/backchannel accepts backchannel authentication requests from clients with the grant type urn:openid:params:grant-type:ciba; the person answers on {issuer}/account/agents; the token is an NHE delegation token decided, minted and audited like a token exchange. `requestLifetimeSeconds` (default 300): how long a request waits for the person. `maxPendingPerUser` (default 5): undecided requests one person may have; one more is refused. `maxPendingPerClient` (default 100): undecided requests one client may have over all the people it asks; one more is refused. `pollIntervalSeconds` (default 5): the `interval` clients must keep; faster polls are answered slow_down. `approvalMaxAuthAgeSeconds` (absent: any sign-in): approving needs a sign-in no older than this. Not available to the system tenant. */
                        backchannelAuthentication?: {
                            /** @description null: any sign-in */
                            approvalMaxAuthAgeSeconds?: number | null;
                            enabled?: boolean;
                            maxPendingPerClient?: number;
                            maxPendingPerUser?: number;
                            pollIntervalSeconds?: number;
                            requestLifetimeSeconds?: number;
                        };
                        claims?: {
                            /** @enum {string} */
                            amrProfile?: "rfc8176" | "projected";
                            ga4ghPassport?: {
                                enabled?: boolean;
                                visaLifetimeSeconds?: number;
                            };
                        };
                        /** @description Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a client_id that is an https URL is resolved by fetching that document (SSRF-safe: no private, loopback, link-local or metadata addresses, the resolved address is the one connected to, no redirects, size cap, 1 s to connect and 2.5 s in all; a few fetches per tenant at once, failures remembered for 30 s), cached within cacheMaxSeconds, validated (client_id equals the URL; token_endpoint_auth_method none, or private_key_jwt with jwks_uri; no secrets; RFC 8252 redirect URIs for native clients, https otherwise). Such a client is always a third party: consent page with the document's name and the URL's host, no delegation, no management or SSF tokens. Off by default; not available to the system tenant. */
                        clientIdMetadataDocuments?: {
                            /** @description Hosts documents may come from (exact names, or *.example.com for any name below example.com); empty: any public host */
                            allowedHosts?: string[];
                            /** @description Not a tenant setting: only false is accepted (and changes nothing). Whether documents and key sets on loopback hosts are fetched is the operator's choice for the whole platform (oidc-core's CIMD_ALLOW_LOOPBACK, development only) */
                            allowLoopback?: boolean;
                            /** @description Longest a document is cached, whatever its Cache-Control says; default 3600 */
                            cacheMaxSeconds?: number;
                            enabled?: boolean;
                            /** @description Largest document accepted; default 5120 */
                            maxDocumentBytes?: number;
                        };
                        nhe?: {
                            allowedNheTypes?: ("llm-autonomous" | "llm-assistive" | "automated-pipeline")[];
                            /** @description 0 disables pruning */
                            auditRetentionDays?: number;
                            defaultMaxTokenLifetime?: number;
                            enabled?: boolean;
                            hardMaxTokenLifetime?: number;
                            /** @description Deepest delegation chain (actors nested in act) a token of this tenant may carry; the ceiling over every delegation policy's maxChainDepth. Default 1: an NHE token is not a valid subject_token (no re-delegation). 2 to 5: an NHE token may be exchanged for another NHE's token (RFC 8693 section 4.1 nested act) where policies allow it */
                            maxChainDepth?: number;
                            /** @description Only system-tenant administrators may change it (a platform quota) */
                            maxNhePerTenant?: number;
                            /** @description Phishing-resistant delegation, the default of delegation policies without their own: token exchange needs a subject_token from a phishing-resistant sign-in (acr phr or phrh, a passkey) whose auth_time is at most this many minutes old, else access_denied. Default 0: no requirement. Applies to user and group policies (a hand-on is bounded by its parent) */
                            phishingResistantSignInMaxAgeMinutes?: number;
                            /** @description Token exchange needs an actor JWT (actor_token_type urn:ietf:params:oauth:token-type:jwt) proving the NHE; default false (the nhe-id actor token is enough). An NHE's own requireActorProof overrides it */
                            requireActorProof?: boolean;
                            requireDpop?: boolean;
                        };
                        /** @description OpenID Connect Dynamic OP profile (OpenID Connect Core 1.0 section 15.2; what the OpenID Foundation Dynamic OP certification tests), off by default. enabled true adds: signed request objects by value and by reference (request, request_uri; RFC 9101; verified with the client's registered keys, asymmetric algorithms only; request_uri fetched through the same SSRF-safe, rate-bounded outbound layer as metadata documents), signed UserInfo for clients that register userinfo_signed_response_alg (ES256, RS256), the id_token and `id_token token` response types for clients that register them (discouraged by RFC 9700; never for agent clients), and for a dynamically registered confidential client the choice to register without PKCE (org.vendor.require_pkce false, its default there; public clients always use PKCE). Registration itself is settings.registration. Not available with the fapi2 security profile or to the system tenant. */
                        openidDynamicProfile?: {
                            enabled?: boolean;
                        };
                        /** @description WebAuthn passkeys. `enabled` (default false): the login page offers "Sign in with a passkey" and browser autofill (conditional mediation), users enrol passkeys at {issuer}/account/passkeys. `rpId`: the WebAuthn RP ID, default the host of the tenant's public base URL; it cannot change once a passkey is enrolled. `passkeyOnly`: the login page offers only passkeys and recovery codes (accounts are set up with one-time enrolment links). `userVerification` (default required), `attestation` (default none: the acr phrh is then never issued). `confirmAgentConsent`: the consent page of an agent client asks a user who has a passkey to confirm with it. */
                        passkeys?: {
                            /** @enum {string} */
                            attestation?: "none" | "direct";
                            confirmAgentConsent?: boolean;
                            enabled?: boolean;
                            passkeyOnly?: boolean;
                            /** @description null: the host of the tenant's public base URL */
                            rpId?: string | null;
                            /** @enum {string} */
                            userVerification?: "required" | "preferred";
                        };
                        /** @description Dynamic Client Registration (RFC 7591, with RFC 7592 read/update/delete by registration access token) at {issuer}/reg. mode `off` (default): no endpoint. `initial-access-token`: a registration needs a token issued by POST /tenants/{tenantId}/initial-access-tokens. `open`: anyone who can reach the endpoint registers clients; WARNING: for development only. Registered clients get only the grant types and authentication methods listed here (never a shared secret or token exchange; client_credentials only with private_key_jwt, RFC 6749 section 4.4), RFC 8252 redirect URIs for native clients and exact https otherwise; they are marked registration "dynamic", never first-party, without delegation or roles. Not available to the system tenant. */
                        registration?: {
                            /** @description Grant types a registered client may have; default authorization_code, refresh_token */
                            grantTypes?: ("authorization_code" | "refresh_token" | "client_credentials" | "urn:ietf:params:oauth:grant-type:device_code")[];
                            /** @enum {string} */
                            mode?: "off" | "initial-access-token" | "open";
                            /** @description Registration attempts per source address and window, counted across replicas; default 10 per 3600 s */
                            rateLimit?: {
                                maxPerWindow?: number;
                                windowSeconds?: number;
                            };
                            /** @description Default none, private_key_jwt */
                            tokenEndpointAuthMethods?: ("none" | "private_key_jwt")[];
                        };
                        security?: {
                            /**
                             * @description `standard` (default): OpenID Connect and OAuth as every tenant has them. `fapi2`: FAPI 2.0 Security Profile: pushed authorization requests required (with redirect_uri), every access and refresh token DPoP-bound, client authentication by private_key_jwt only (assertion aud exactly the issuer; PS256, ES256 or EdDSA), PKCE S256, ES256 ID tokens; other clients of the tenant get invalid_client. Not available to the system tenant.
                             * @enum {string}
                             */
                            profile?: "standard" | "fapi2";
                        };
                    };
                };
            };
        };
        responses: {
            /** @description The updated tenant */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Tenant"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency could not confirm the change (`service-unavailable`); retrying the request is safe */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listClients: {
        parameters: {
            query?: {
                clientIdPrefix?: string;
                cursor?: string;
                grantType?: "authorization_code" | "refresh_token" | "client_credentials" | "urn:ietf:params:oauth:grant-type:device_code" | "urn:ietf:params:oauth:grant-type:token-exchange" | "urn:ietf:params:oauth:grant-type:jwt-bearer" | "urn:openid:params:grant-type:ciba";
                limit?: number;
                /** @description Only clients created through this API, or only dynamically registered ones */
                registration?: "managed" | "dynamic";
            };
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of clients */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClientPage"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createClient: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description A ping client's notification endpoint (https; CIBA Core section 10.2)
                     */
                    backchannelClientNotificationEndpoint?: string;
                    /**
                     * @description CIBA clients (grant type urn:openid:params:grant-type:ciba): poll (default) or ping (CIBA Core section 5; push is not supported)
                     * @enum {string}
                     */
                    backchannelTokenDeliveryMode?: "poll" | "ping";
                    /** @description Generated when absent */
                    clientId?: string;
                    config?: {
                        /** @description Body of a function of `input` returning the custom_claims object; null removes it */
                        customizeUserInfoClaims?: string | null;
                        featureToggles?: {
                            requireAuthorizationScopesInRequest?: boolean;
                            requireResourceIndicatorInRequest?: boolean;
                        };
                        legacyRoleCompatibility?: boolean;
                        nhe?: {
                            allowedNheIdentifiers?: string[];
                            delegationEnabled?: boolean;
                            /** @description null removes it */
                            maxTokenLifetime?: number | null;
                        };
                    };
                    /** @description Every token request must carry a DPoP proof: access and refresh tokens are always DPoP-bound (RFC 9449 dpop_bound_access_tokens); default false */
                    dpopBoundAccessTokens?: boolean;
                    enabled?: boolean;
                    firstParty?: boolean;
                    grantTypes: ("authorization_code" | "refresh_token" | "client_credentials" | "urn:ietf:params:oauth:grant-type:device_code" | "urn:ietf:params:oauth:grant-type:token-exchange" | "urn:ietf:params:oauth:grant-type:jwt-bearer" | "urn:openid:params:grant-type:ciba")[];
                    /** @enum {string} */
                    idTokenSignedResponseAlg?: "ES256" | "RS256";
                    jwks?: {
                        keys: ({
                            alg?: string;
                            /** @description Public exponent */
                            e: string;
                            key_ops?: ("sign" | "verify" | "encrypt" | "decrypt" | "wrapKey" | "unwrapKey" | "deriveKey" | "deriveBits")[];
                            kid?: string;
                            /** @enum {string} */
                            kty: "RSA";
                            /** @description Modulus, 2048 to 16384 bits */
                            n: string;
                            /** @enum {string} */
                            use?: "sig" | "enc";
                            x5c?: string[];
                            /** @description SHA-1 thumbprint (20 bytes) */
                            x5t?: string;
                            /** @description SHA-256 thumbprint (32 bytes) */
                            "x5t#S256"?: string;
                            x5u?: string;
                        } | {
                            alg?: string;
                            /** @enum {string} */
                            crv: "P-256" | "P-384" | "P-521";
                            key_ops?: ("sign" | "verify" | "encrypt" | "decrypt" | "wrapKey" | "unwrapKey" | "deriveKey" | "deriveBits")[];
                            kid?: string;
                            /** @enum {string} */
                            kty: "EC";
                            /** @enum {string} */
                            use?: "sig" | "enc";
                            x: string;
                            x5c?: string[];
                            /** @description SHA-1 thumbprint (20 bytes) */
                            x5t?: string;
                            /** @description SHA-256 thumbprint (32 bytes) */
                            "x5t#S256"?: string;
                            x5u?: string;
                            y: string;
                        } | {
                            alg?: string;
                            /** @enum {string} */
                            crv: "Ed25519" | "Ed448" | "X25519" | "X448";
                            key_ops?: ("sign" | "verify" | "encrypt" | "decrypt" | "wrapKey" | "unwrapKey" | "deriveKey" | "deriveBits")[];
                            kid?: string;
                            /** @enum {string} */
                            kty: "OKP";
                            /** @enum {string} */
                            use?: "sig" | "enc";
                            x: string;
                            x5c?: string[];
                            /** @description SHA-1 thumbprint (20 bytes) */
                            x5t?: string;
                            /** @description SHA-256 thumbprint (32 bytes) */
                            "x5t#S256"?: string;
                            x5u?: string;
                        })[];
                    };
                    name: string;
                    /** @description Authorization-code requests must carry PKCE (S256); default true. Only a confidential client may turn it off (400 for a public one); a code_challenge that is sent is always checked */
                    pkceRequired?: boolean;
                    postLogoutRedirectUris?: string[];
                    redirectUris?: string[];
                    /** @description Authorization requests only through the pushed authorization request endpoint; a plain one is refused (RFC 9126 require_pushed_authorization_requests); default false */
                    requirePushedAuthorizationRequests?: boolean;
                    showLogoutPrompt?: boolean;
                    /** @enum {string} */
                    tokenEndpointAuthMethod?: "client_secret_basic" | "client_secret_post" | "private_key_jwt" | "none";
                };
            };
        };
        responses: {
            /** @description The client, with its secret */
            201: {
                headers: {
                    /** @description URL of the client */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClientWithSecret"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getClient: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                clientId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The client (never its secret) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Client"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteClient: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                clientId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency could not confirm the change (`service-unavailable`); retrying the request is safe */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateClient: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                clientId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description A ping client's notification endpoint (https; CIBA Core section 10.2)
                     */
                    backchannelClientNotificationEndpoint?: string;
                    /**
                     * @description CIBA clients (grant type urn:openid:params:grant-type:ciba): poll (default) or ping (CIBA Core section 5; push is not supported)
                     * @enum {string}
                     */
                    backchannelTokenDeliveryMode?: "poll" | "ping";
                    config?: {
                        /** @description Body of a function of `input` returning the custom_claims object; null removes it */
                        customizeUserInfoClaims?: string | null;
                        featureToggles?: {
                            requireAuthorizationScopesInRequest?: boolean;
                            requireResourceIndicatorInRequest?: boolean;
                        };
                        legacyRoleCompatibility?: boolean;
                        nhe?: {
                            allowedNheIdentifiers?: string[];
                            delegationEnabled?: boolean;
                            /** @description null removes it */
                            maxTokenLifetime?: number | null;
                        };
                    };
                    /** @description Every token request must carry a DPoP proof: access and refresh tokens are always DPoP-bound (RFC 9449 dpop_bound_access_tokens); default false */
                    dpopBoundAccessTokens?: boolean;
                    enabled?: boolean;
                    firstParty?: boolean;
                    grantTypes?: ("authorization_code" | "refresh_token" | "client_credentials" | "urn:ietf:params:oauth:grant-type:device_code" | "urn:ietf:params:oauth:grant-type:token-exchange" | "urn:ietf:params:oauth:grant-type:jwt-bearer" | "urn:openid:params:grant-type:ciba")[];
                    /** @enum {string} */
                    idTokenSignedResponseAlg?: "ES256" | "RS256";
                    jwks?: {
                        keys: ({
                            alg?: string;
                            /** @description Public exponent */
                            e: string;
                            key_ops?: ("sign" | "verify" | "encrypt" | "decrypt" | "wrapKey" | "unwrapKey" | "deriveKey" | "deriveBits")[];
                            kid?: string;
                            /** @enum {string} */
                            kty: "RSA";
                            /** @description Modulus, 2048 to 16384 bits */
                            n: string;
                            /** @enum {string} */
                            use?: "sig" | "enc";
                            x5c?: string[];
                            /** @description SHA-1 thumbprint (20 bytes) */
                            x5t?: string;
                            /** @description SHA-256 thumbprint (32 bytes) */
                            "x5t#S256"?: string;
                            x5u?: string;
                        } | {
                            alg?: string;
                            /** @enum {string} */
                            crv: "P-256" | "P-384" | "P-521";
                            key_ops?: ("sign" | "verify" | "encrypt" | "decrypt" | "wrapKey" | "unwrapKey" | "deriveKey" | "deriveBits")[];
                            kid?: string;
                            /** @enum {string} */
                            kty: "EC";
                            /** @enum {string} */
                            use?: "sig" | "enc";
                            x: string;
                            x5c?: string[];
                            /** @description SHA-1 thumbprint (20 bytes) */
                            x5t?: string;
                            /** @description SHA-256 thumbprint (32 bytes) */
                            "x5t#S256"?: string;
                            x5u?: string;
                            y: string;
                        } | {
                            alg?: string;
                            /** @enum {string} */
                            crv: "Ed25519" | "Ed448" | "X25519" | "X448";
                            key_ops?: ("sign" | "verify" | "encrypt" | "decrypt" | "wrapKey" | "unwrapKey" | "deriveKey" | "deriveBits")[];
                            kid?: string;
                            /** @enum {string} */
                            kty: "OKP";
                            /** @enum {string} */
                            use?: "sig" | "enc";
                            x: string;
                            x5c?: string[];
                            /** @description SHA-1 thumbprint (20 bytes) */
                            x5t?: string;
                            /** @description SHA-256 thumbprint (32 bytes) */
                            "x5t#S256"?: string;
                            x5u?: string;
                        })[];
                    };
                    name?: string;
                    /** @description Authorization-code requests must carry PKCE (S256); default true. Only a confidential client may turn it off (400 for a public one); a code_challenge that is sent is always checked */
                    pkceRequired?: boolean;
                    postLogoutRedirectUris?: string[];
                    redirectUris?: string[];
                    /** @description Authorization requests only through the pushed authorization request endpoint; a plain one is refused (RFC 9126 require_pushed_authorization_requests); default false */
                    requirePushedAuthorizationRequests?: boolean;
                    showLogoutPrompt?: boolean;
                    /** @enum {string} */
                    tokenEndpointAuthMethod?: "client_secret_basic" | "client_secret_post" | "private_key_jwt" | "none";
                };
            };
        };
        responses: {
            /** @description The updated client */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClientWithSecret"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency could not confirm the change (`service-unavailable`); retrying the request is safe */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getClientCustomClaimsScriptState: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                clientId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The script state */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CustomClaimsScriptState"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    assignRoleClient: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                clientId: string;
                roleId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Assigned */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    unassignRoleClient: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                clientId: string;
                roleId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Not assigned */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    rotateClientSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                clientId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The new secret, shown once */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClientSecret"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    countClients: {
        parameters: {
            query?: {
                clientIdPrefix?: string;
                grantType?: "authorization_code" | "refresh_token" | "client_credentials" | "urn:ietf:params:oauth:grant-type:device_code" | "urn:ietf:params:oauth:grant-type:token-exchange" | "urn:ietf:params:oauth:grant-type:jwt-bearer" | "urn:openid:params:grant-type:ciba";
                /** @description Only clients created through this API, or only dynamically registered ones */
                registration?: "managed" | "dynamic";
            };
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The number of matching clients */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Count"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listGroups: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
                namePrefix?: string;
            };
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of groups */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GroupPage"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                };
            };
        };
        responses: {
            /** @description The group */
            201: {
                headers: {
                    /** @description URL of the group */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Group"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                groupId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The group */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Group"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                groupId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency could not confirm the change (`service-unavailable`); retrying the request is safe */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                groupId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    name?: string;
                };
            };
        };
        responses: {
            /** @description The group */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Group"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listGroupMembers: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path: {
                groupId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of users */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserPage"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    addGroupMember: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                groupId: string;
                tenantId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user is a member */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    removeGroupMember: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                groupId: string;
                tenantId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user is not a member */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    assignRoleGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                groupId: string;
                roleId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Assigned */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    unassignRoleGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                groupId: string;
                roleId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Not assigned */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    countGroups: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The number of groups */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Count"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listIdJagAudiences: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of audiences */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdJagAudiencePage"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createIdJagAudience: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description The agents (NHE identifiers of this tenant) that may obtain ID-JAGs for this audience, presenting their delegation token as the subject token through one of the listed clients; the ID-JAG then carries the delegation (act, agent). Empty: no agent may
                     * @default []
                     */
                    agents?: string[];
                    /** @description The other authorization server's issuer identifier, the ID-JAG `aud` (RFC 8414 section 2); immutable */
                    audience: string;
                    /**
                     * @description The clients of this tenant that may ask for ID-JAGs for this audience, each with its client_id there
                     * @default []
                     */
                    clients?: {
                        /** @description A client of this tenant that authenticates */
                        clientId: string;
                        /** @description The client_id that server knows this client by: the ID-JAG `client_id` claim */
                        clientIdAtAudience: string;
                    }[];
                    description?: string;
                    /** @default true */
                    enabled?: boolean;
                    /**
                     * @description Lifetime of the ID-JAGs issued (exp - iat), seconds: short, as they are bearer artifacts
                     * @default 300
                     */
                    lifetimeSeconds?: number;
                    /**
                     * @description Resources (RFC 8707) at that server an ID-JAG may name: a request naming another is refused (the (audience, resource) pairs)
                     * @default []
                     */
                    resources?: string[];
                    /**
                     * @description The most scope an ID-JAG may carry: requested scopes are cut to these
                     * @default []
                     */
                    scopes?: string[];
                };
            };
        };
        responses: {
            /** @description The audience */
            201: {
                headers: {
                    /** @description URL of the audience */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdJagAudience"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getIdJagAudience: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                audienceId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The audience */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdJagAudience"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteIdJagAudience: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                audienceId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateIdJagAudience: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                audienceId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description The agents (NHE identifiers of this tenant) that may obtain ID-JAGs for this audience, presenting their delegation token as the subject token through one of the listed clients; the ID-JAG then carries the delegation (act, agent). Empty: no agent may */
                    agents?: string[];
                    /** @description The clients of this tenant that may ask for ID-JAGs for this audience, each with its client_id there */
                    clients?: {
                        /** @description A client of this tenant that authenticates */
                        clientId: string;
                        /** @description The client_id that server knows this client by: the ID-JAG `client_id` claim */
                        clientIdAtAudience: string;
                    }[];
                    /** @description null removes it */
                    description?: string | null;
                    /** @description Nothing is issued for a disabled audience, from the next request on */
                    enabled?: boolean;
                    /** @description Lifetime of the ID-JAGs issued (exp - iat), seconds: short, as they are bearer artifacts */
                    lifetimeSeconds?: number;
                    /** @description Resources (RFC 8707) at that server an ID-JAG may name: a request naming another is refused (the (audience, resource) pairs) */
                    resources?: string[];
                    /** @description The most scope an ID-JAG may carry: requested scopes are cut to these */
                    scopes?: string[];
                };
            };
        };
        responses: {
            /** @description The updated audience */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdJagAudience"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listInitialAccessTokens: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tokens */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InitialAccessTokenList"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createInitialAccessToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    description?: string;
                    /** @default 86400 */
                    expiresInSeconds?: number;
                    /** @default 1 */
                    maxUses?: number;
                };
            };
        };
        responses: {
            /** @description The token, shown once */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IssuedInitialAccessToken"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteInitialAccessToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
                tokenId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listNhes: {
        parameters: {
            query?: {
                cursor?: string;
                enabled?: "true" | "false";
                identifierPrefix?: string;
                limit?: number;
                type?: string;
            };
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of registrations */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NhePage"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createNhe: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description OAuth clients that embody this NHE (agent clients): a client id of the tenant, or a Client ID Metadata Document URL (https; http only on loopback) that may end with * to match every client id starting with it (the host named in full). Their authorization-code and device-flow access tokens are NHE delegation tokens; a client may embody one NHE only. */
                    agentClients?: string[];
                    allowedScopes: string[];
                    /** @default true */
                    enabled?: boolean;
                    identifier: string;
                    /** @description Public keys the NHE signs actor tokens (and, when pinned, DPoP proofs) with; not together with jwksUri */
                    jwks?: {
                        keys: ({
                            alg?: string;
                            /** @description Public exponent */
                            e: string;
                            key_ops?: ("sign" | "verify" | "encrypt" | "decrypt" | "wrapKey" | "unwrapKey" | "deriveKey" | "deriveBits")[];
                            kid?: string;
                            /** @enum {string} */
                            kty: "RSA";
                            /** @description Modulus, 2048 to 16384 bits */
                            n: string;
                            /** @enum {string} */
                            use?: "sig" | "enc";
                            x5c?: string[];
                            /** @description SHA-1 thumbprint (20 bytes) */
                            x5t?: string;
                            /** @description SHA-256 thumbprint (32 bytes) */
                            "x5t#S256"?: string;
                            x5u?: string;
                        } | {
                            alg?: string;
                            /** @enum {string} */
                            crv: "P-256" | "P-384" | "P-521";
                            key_ops?: ("sign" | "verify" | "encrypt" | "decrypt" | "wrapKey" | "unwrapKey" | "deriveKey" | "deriveBits")[];
                            kid?: string;
                            /** @enum {string} */
                            kty: "EC";
                            /** @enum {string} */
                            use?: "sig" | "enc";
                            x: string;
                            x5c?: string[];
                            /** @description SHA-1 thumbprint (20 bytes) */
                            x5t?: string;
                            /** @description SHA-256 thumbprint (32 bytes) */
                            "x5t#S256"?: string;
                            x5u?: string;
                            y: string;
                        } | {
                            alg?: string;
                            /** @enum {string} */
                            crv: "Ed25519" | "Ed448" | "X25519" | "X448";
                            key_ops?: ("sign" | "verify" | "encrypt" | "decrypt" | "wrapKey" | "unwrapKey" | "deriveKey" | "deriveBits")[];
                            kid?: string;
                            /** @enum {string} */
                            kty: "OKP";
                            /** @enum {string} */
                            use?: "sig" | "enc";
                            x: string;
                            x5c?: string[];
                            /** @description SHA-1 thumbprint (20 bytes) */
                            x5t?: string;
                            /** @description SHA-256 thumbprint (32 bytes) */
                            "x5t#S256"?: string;
                            x5u?: string;
                        })[];
                    };
                    /** @description https URL of the NHE's JWK Set (fetched SSRF-safely, cached); not together with jwks */
                    jwksUri?: string;
                    /** @description Seconds; default settings.nhe.defaultMaxTokenLifetime; at most settings.nhe.hardMaxTokenLifetime */
                    maxTokenLifetime?: number;
                    model?: {
                        name?: string;
                        provider?: string;
                        version?: string;
                    };
                    operator: string;
                    /** @description true: token exchange needs an actor JWT (actor_token_type urn:ietf:params:oauth:token-type:jwt) for this NHE; false: the nhe-id actor token is enough; null: the tenant's settings.nhe.requireActorProof */
                    requireActorProof?: boolean | null;
                    /** @description Tokens of this NHE must be DPoP-bound to one of its registered keys (needs jwks or jwksUri) */
                    requireKeyBoundDpop?: boolean;
                    type: string;
                    workloadIdentity?: {
                        /** @description `iss` of the workload JWTs: a workload issuer registered for the tenant (/tenants/{tenantId}/workload-issuers) */
                        issuer: string;
                        /** @description `sub` of the workload JWTs, e.g. system:serviceaccount:<namespace>:<name> or spiffe://<trust-domain>/<path> */
                        subject: string;
                    };
                };
            };
        };
        responses: {
            /** @description The registration */
            201: {
                headers: {
                    /** @description URL of the registration */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Nhe"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getNhe: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                nheId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The registration */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Nhe"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteNhe: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                nheId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency could not confirm the change (`service-unavailable`); retrying the request is safe */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateNhe: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                nheId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description Replaces the list; [] removes every agent client */
                    agentClients?: string[];
                    allowedScopes?: string[];
                    enabled?: boolean;
                    /** @description null removes the keys */
                    jwks?: {
                        keys: ({
                            alg?: string;
                            /** @description Public exponent */
                            e: string;
                            key_ops?: ("sign" | "verify" | "encrypt" | "decrypt" | "wrapKey" | "unwrapKey" | "deriveKey" | "deriveBits")[];
                            kid?: string;
                            /** @enum {string} */
                            kty: "RSA";
                            /** @description Modulus, 2048 to 16384 bits */
                            n: string;
                            /** @enum {string} */
                            use?: "sig" | "enc";
                            x5c?: string[];
                            /** @description SHA-1 thumbprint (20 bytes) */
                            x5t?: string;
                            /** @description SHA-256 thumbprint (32 bytes) */
                            "x5t#S256"?: string;
                            x5u?: string;
                        } | {
                            alg?: string;
                            /** @enum {string} */
                            crv: "P-256" | "P-384" | "P-521";
                            key_ops?: ("sign" | "verify" | "encrypt" | "decrypt" | "wrapKey" | "unwrapKey" | "deriveKey" | "deriveBits")[];
                            kid?: string;
                            /** @enum {string} */
                            kty: "EC";
                            /** @enum {string} */
                            use?: "sig" | "enc";
                            x: string;
                            x5c?: string[];
                            /** @description SHA-1 thumbprint (20 bytes) */
                            x5t?: string;
                            /** @description SHA-256 thumbprint (32 bytes) */
                            "x5t#S256"?: string;
                            x5u?: string;
                            y: string;
                        } | {
                            alg?: string;
                            /** @enum {string} */
                            crv: "Ed25519" | "Ed448" | "X25519" | "X448";
                            key_ops?: ("sign" | "verify" | "encrypt" | "decrypt" | "wrapKey" | "unwrapKey" | "deriveKey" | "deriveBits")[];
                            kid?: string;
                            /** @enum {string} */
                            kty: "OKP";
                            /** @enum {string} */
                            use?: "sig" | "enc";
                            x: string;
                            x5c?: string[];
                            /** @description SHA-1 thumbprint (20 bytes) */
                            x5t?: string;
                            /** @description SHA-256 thumbprint (32 bytes) */
                            "x5t#S256"?: string;
                            x5u?: string;
                        })[];
                    } | null;
                    /** @description null removes the URL */
                    jwksUri?: string | null;
                    maxTokenLifetime?: number;
                    /** @description null removes the model info */
                    model?: {
                        name?: string;
                        provider?: string;
                        version?: string;
                    } | null;
                    operator?: string;
                    /** @description true: token exchange needs an actor JWT (actor_token_type urn:ietf:params:oauth:token-type:jwt) for this NHE; false: the nhe-id actor token is enough; null: the tenant's settings.nhe.requireActorProof */
                    requireActorProof?: boolean | null;
                    /** @description Tokens of this NHE must be DPoP-bound to one of its registered keys (needs jwks or jwksUri) */
                    requireKeyBoundDpop?: boolean;
                    type?: string;
                    /** @description null removes the workload identity */
                    workloadIdentity?: {
                        /** @description `iss` of the workload JWTs: a workload issuer registered for the tenant (/tenants/{tenantId}/workload-issuers) */
                        issuer: string;
                        /** @description `sub` of the workload JWTs, e.g. system:serviceaccount:<namespace>:<name> or spiffe://<trust-domain>/<path> */
                        subject: string;
                    } | null;
                };
            };
        };
        responses: {
            /** @description The updated registration */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Nhe"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency could not confirm the change (`service-unavailable`); retrying the request is safe */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listDelegationPolicies: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
                targetId?: string;
                targetType?: "user" | "group" | "nhe";
            };
            header?: never;
            path: {
                nheId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of policies */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DelegationPolicyPage"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createDelegationPolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                nheId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    allowedScopes: string[];
                    /** @description Scopes of allowedScopes granted only with the person's approval on their own device (a backchannel authentication request, OpenID CIBA, where the tenant turned settings.backchannelAuthentication on): token exchange and agent clients' tokens leave them out (removed layer needs-approval). Absent or empty: none */
                    approvalRequiredScopes?: string[];
                    /** @description Deepest delegation chain (actors in act) a token issued through this policy may lead to; the tenant's settings.nhe.maxChainDepth is the ceiling. Absent: 1 for a user or group target (the NHE may not hand on), 2 for an NHE target (the hand-off itself, no further). An NHE target needs at least 2 */
                    maxChainDepth?: number;
                    /** @description Seconds; at most settings.nhe.hardMaxTokenLifetime */
                    maxTokenLifetime?: number;
                    /** @description Token exchange through this policy needs a subject_token from a phishing-resistant sign-in (acr phr or phrh, a passkey) whose auth_time is at most this many minutes old; otherwise access_denied. 0: not required by this policy, even when the tenant requires it. Absent: the tenant's settings.nhe.phishingResistantSignInMaxAgeMinutes (default 0, none). User and group targets only */
                    phishingResistantSignInMaxAgeMinutes?: number;
                    /** @description Who may delegate to this NHE: a user, a group, or another NHE of the tenant (its id), which may then hand a delegated token on to this one */
                    target: {
                        id: string;
                        /** @enum {string} */
                        type: "user" | "group" | "nhe";
                    };
                };
            };
        };
        responses: {
            /** @description The policy */
            201: {
                headers: {
                    /** @description URL of the policy */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DelegationPolicy"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getDelegationPolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                nheId: string;
                policyId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The policy */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DelegationPolicy"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteDelegationPolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                nheId: string;
                policyId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency could not confirm the change (`service-unavailable`); retrying the request is safe */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateDelegationPolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                nheId: string;
                policyId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    allowedScopes?: string[];
                    /** @description Scopes of allowedScopes granted only with the person's approval on their own device (a backchannel authentication request, OpenID CIBA, where the tenant turned settings.backchannelAuthentication on): token exchange and agent clients' tokens leave them out (removed layer needs-approval). Absent or empty: none */
                    approvalRequiredScopes?: string[];
                    /** @description null removes it (the default by target type applies) */
                    maxChainDepth?: number | null;
                    /** @description null removes the policy lifetime */
                    maxTokenLifetime?: number | null;
                    /** @description null removes it (the tenant's default applies) */
                    phishingResistantSignInMaxAgeMinutes?: number | null;
                    /** @description Who may delegate to this NHE: a user, a group, or another NHE of the tenant (its id), which may then hand a delegated token on to this one */
                    target?: {
                        id: string;
                        /** @enum {string} */
                        type: "user" | "group" | "nhe";
                    };
                };
            };
        };
        responses: {
            /** @description The updated policy */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DelegationPolicy"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency could not confirm the change (`service-unavailable`); retrying the request is safe */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    simulateDelegation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                nheId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description client_id of the client that would exchange, or of an agent client of this NHE (a metadata document URL included) */
                    clientId: string;
                    /** @description Space-separated scopes the user consented to the client for this resource (the subject token's scope). Caps a third-party client's delegation (layer consent); omitted, a third-party client has none. Ignored for first-party clients. */
                    consentedScope?: string;
                    /** @description Simulates handing a delegation token on to this NHE (a delegation chain) instead of a user's token. The parent is assumed fresh, for the requested resource, each actor named; the decision explains each hop (decision.chain.hops). */
                    parent?: {
                        /** @description The NHE identifiers of the subject token's act chain, outermost (the NHE that hands on) first */
                        actors: string[];
                        /** @description The subject token's scopes (space-separated) */
                        scope: string;
                    };
                    /** @description Resource server identifier */
                    resource: string;
                    /** @description Space-separated requested scopes */
                    scope: string;
                    /** @description The user's sign-in as the subject token would state it, for a policy or tenant that requires a recent phishing-resistant sign-in. Omitted (or a member omitted): the token states nothing, which never meets the requirement. The decision explains it (decision.signIn) */
                    signIn?: {
                        /** @description The subject token's acr (phr, phrh: phishing-resistant) */
                        acr?: string;
                        /** @description Minutes since the user signed in (now minus the subject token's auth_time) */
                        ageMinutes?: number;
                    };
                    /** @description The delegating user (the subject token's sub) */
                    userId: string;
                };
            };
        };
        responses: {
            /** @description The decision */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DelegationSimulation"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    countNhes: {
        parameters: {
            query?: {
                enabled?: "true" | "false";
                identifierPrefix?: string;
                type?: string;
            };
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The number of matching registrations */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Count"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listTokenAudit: {
        parameters: {
            query?: {
                clientId?: string;
                cursor?: string;
                /** @description issuedAt at or after (RFC 3339) */
                from?: string;
                /** @description The token's jti (find the record of a token) */
                jti?: string;
                limit?: number;
                /** @description Registration id of the NHE */
                nheId?: string;
                nheIdentifier?: string;
                /** @description Tokens exchanged from this token (delegation chains) */
                parentJti?: string;
                resourceServer?: string;
                /** @description issuedAt before (RFC 3339) */
                to?: string;
                userId?: string;
            };
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of audit records */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenAuditPage"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    verifyTokenAuditChain: {
        parameters: {
            query?: {
                from?: string;
                to?: string;
            };
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The verification result (valid is false when tampering is detected) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditChainVerification"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getTokenAudit: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                auditId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The audit record */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenAuditRecord"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getTokenAuditDelegationChain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                auditId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The chain */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenAuditDelegationChain"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    countTokenAudit: {
        parameters: {
            query?: {
                clientId?: string;
                /** @description issuedAt at or after (RFC 3339) */
                from?: string;
                /** @description The token's jti (find the record of a token) */
                jti?: string;
                /** @description Registration id of the NHE */
                nheId?: string;
                nheIdentifier?: string;
                /** @description Tokens exchanged from this token (delegation chains) */
                parentJti?: string;
                resourceServer?: string;
                /** @description issuedAt before (RFC 3339) */
                to?: string;
                userId?: string;
            };
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The number of matching records */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Count"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getTokenAuditHistogram: {
        parameters: {
            query?: {
                /** @description Width of a bucket in seconds (default one hour); buckets are aligned to multiples of it since the epoch */
                bucketSeconds?: number;
                clientId?: string;
                /** @description Start of the window (RFC 3339, UTC); default: `to` minus 24 hours */
                from?: string;
                nheIdentifier?: string;
                resourceServer?: string;
                /** @description End of the window (RFC 3339, UTC); default: now */
                to?: string;
                userId?: string;
            };
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The counts */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenAuditHistogram"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getTokenRefusalHistogram: {
        parameters: {
            query?: {
                /** @description Width of a bucket in seconds: whole hours (3600, 7200, ...; default one hour), aligned since the epoch */
                bucketSeconds?: number;
                /** @description Only this OAuth error code */
                error?: string;
                /** @description Start of the window (RFC 3339, UTC); default: `to` minus 24 hours */
                from?: string;
                nheIdentifier?: string;
                /** @description End of the window (RFC 3339, UTC); default: now */
                to?: string;
            };
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The counts */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenRefusalHistogram"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listResourceServers: {
        parameters: {
            query?: {
                cursor?: string;
                identifier?: string;
                limit?: number;
            };
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of resource servers */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ResourceServerPage"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createResourceServer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    config?: {
                        accessToken?: {
                            /** @description Seconds, 5 to 86400: the lifetime of ordinary access tokens for this API; an NHE delegation token takes it as one term of its TTL, clamped to at least 60 s */
                            lifetime: number;
                        };
                        nhe?: {
                            acceptDelegationTokens?: boolean;
                            /** @description Empty: every type */
                            allowedNheTypes?: ("llm-autonomous" | "llm-assistive" | "automated-pipeline")[];
                            requireDelegationTokens?: boolean;
                        };
                    };
                    identifier: string;
                    /** @description client_ids of confidential clients of this tenant that may introspect this API's access tokens (RFC 7662 section 4), usually the API's own client; the client a token was issued to may always introspect it, every other caller is answered {"active": false}. A PATCH replaces the list */
                    introspectionClientIds?: string[];
                    /** @description URL of the API's OAuth 2.0 Protected Resource Metadata (RFC 9728), e.g. https://api.example/.well-known/oauth-protected-resource/orders; https, or http on a loopback host */
                    metadataUrl?: string;
                    name: string;
                    /** @description Scope → what the consent page says for it, e.g. {"orders:read": "See your orders"}; every key must be one of `scopes`. A PATCH replaces the whole map; a PATCH of `scopes` alone drops the descriptions of scopes it removes */
                    scopeDescriptions?: {
                        [key: string]: string;
                    };
                    /** @default [] */
                    scopes?: string[];
                };
            };
        };
        responses: {
            /** @description The resource server */
            201: {
                headers: {
                    /** @description URL of the resource server */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ResourceServer"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getResourceServer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                resourceServerId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The resource server */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ResourceServer"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteResourceServer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                resourceServerId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateResourceServer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                resourceServerId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    config?: {
                        accessToken?: {
                            /** @description Seconds, 5 to 86400: the lifetime of ordinary access tokens for this API; an NHE delegation token takes it as one term of its TTL, clamped to at least 60 s */
                            lifetime: number;
                        };
                        nhe?: {
                            acceptDelegationTokens?: boolean;
                            /** @description Empty: every type */
                            allowedNheTypes?: ("llm-autonomous" | "llm-assistive" | "automated-pipeline")[];
                            requireDelegationTokens?: boolean;
                        };
                    };
                    /** @description client_ids of confidential clients of this tenant that may introspect this API's access tokens (RFC 7662 section 4), usually the API's own client; the client a token was issued to may always introspect it, every other caller is answered {"active": false}. A PATCH replaces the list */
                    introspectionClientIds?: string[];
                    /** @description null removes it */
                    metadataUrl?: string | null;
                    name?: string;
                    /** @description Scope → what the consent page says for it, e.g. {"orders:read": "See your orders"}; every key must be one of `scopes`. A PATCH replaces the whole map; a PATCH of `scopes` alone drops the descriptions of scopes it removes */
                    scopeDescriptions?: {
                        [key: string]: string;
                    };
                    scopes?: string[];
                };
            };
        };
        responses: {
            /** @description The updated resource server */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ResourceServer"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    countResourceServers: {
        parameters: {
            query?: {
                identifier?: string;
            };
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The number of matching resource servers */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Count"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listRoles: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
                resourceServer?: string;
            };
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of roles */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RolePage"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createRole: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    permissions: string[];
                    /** @description Identifier of a resource server of the tenant, or urn:idp:management */
                    resourceServer: string;
                };
            };
        };
        responses: {
            /** @description The role */
            201: {
                headers: {
                    /** @description URL of the role */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Role"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getRole: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                roleId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The role */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Role"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteRole: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                roleId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateRole: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                roleId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    name?: string;
                    permissions?: string[];
                };
            };
        };
        responses: {
            /** @description The role */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Role"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    countRoles: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The number of roles */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Count"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listScimCredentials: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The credentials, oldest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScimCredentialList"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createScimCredential: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    description?: string;
                };
            };
        };
        responses: {
            /** @description The credential and its secret, shown once */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IssuedScimCredential"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteScimCredential: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                credentialId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    revokeScimCredential: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                credentialId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The revoked credential */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScimCredential"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listSigningKeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The keys */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SigningKeyList"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    rotateSigningKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /**
                     * @default ES256
                     * @enum {string}
                     */
                    alg?: "ES256" | "RS256";
                };
            };
        };
        responses: {
            /** @description The new active key */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SigningKey"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listSsfStreams: {
        parameters: {
            query?: {
                /** @description Only this receiver’s streams */
                clientId?: string;
            };
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The streams (at most 500) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["SsfStream"][];
                    };
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getSsfStream: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                streamId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The stream */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SsfStream"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteSsfStream: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                streamId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateSsfStreamStatus: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                streamId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Why (shown to the receiver) */
                    reason?: string;
                    /** @enum {string} */
                    status: "enabled" | "paused" | "disabled";
                };
            };
        };
        responses: {
            /** @description The stream */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SsfStream"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listTrustedIssuers: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of issuers */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TrustedIssuerPage"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createTrustedIssuer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Its agents accepted here (with allowAct): act.sub mapped to an NHE of this tenant; an act.sub not listed is refused
                     * @default []
                     */
                    actors?: {
                        /** @description Identifier of one of this tenant’s NHEs */
                        nheIdentifier: string;
                        /** @description The assertion’s act.sub, exactly as the issuer writes it (e.g. nhe:orders-agent) */
                        subject: string;
                    }[];
                    /**
                     * @description JWS algorithms accepted on its assertions (asymmetric only)
                     * @default [
                     *       "RS256",
                     *       "ES256"
                     *     ]
                     */
                    algorithms?: ("RS256" | "RS384" | "RS512" | "PS256" | "PS384" | "PS512" | "ES256" | "ES384" | "ES512" | "EdDSA")[];
                    /**
                     * @description Its assertions may carry `act` (a delegation, RFC 8693 section 4.1); otherwise such an assertion is refused
                     * @default false
                     */
                    allowAct?: boolean;
                    /**
                     * @description An assertion may be redeemed again until it expires; otherwise its jti is redeemable once
                     * @default false
                     */
                    allowReuse?: boolean;
                    /**
                     * @description `aud` values accepted besides this tenant's issuer and token endpoint (RFC 7523 section 3 item 3); URLs or URNs
                     * @default []
                     */
                    audiences?: string[];
                    description?: string;
                    /** @default true */
                    enabled?: boolean;
                    /** @description The `iss` of its assertions, exactly (RFC 7523 section 3 item 1); immutable */
                    issuer: string;
                    /**
                     * @description A subject that maps to nobody becomes a new user (linked_identity: linked to the upstream provider; username_claim: that username); user_id cannot create users
                     * @default false
                     */
                    jitProvisioning?: boolean;
                    /** @description URL of its JWK Set (fetched through the SSRF-safe outbound client, cached) */
                    jwksUri: string;
                    /**
                     * @description Assertions live at most this long (exp - iat, and exp - now); longer ones are refused
                     * @default 300
                     */
                    maxLifetimeSeconds?: number;
                    /** @description Subscribe to the issuer’s Shared Signals (SSF 1.0, RFC 8936 poll): its revocations revoke the tokens this tenant minted from its assertions */
                    signals?: {
                        /** @description This tenant’s client at the issuer: client_credentials with the scope ssf.manage on its SSF audience (urn:idp:ssf) */
                        clientId: string;
                        /** @description Write-only; stored sealed. Required the first time; left out on an update, the stored one is kept */
                        clientSecret?: string;
                        /**
                         * @description Poll the issuer’s transmitter (off: the receiver stops and deletes its stream at the issuer; the settings are kept)
                         * @default true
                         */
                        enabled?: boolean;
                        /**
                         * @description Seconds between polls: the issuer’s part of the revocation bound
                         * @default 5
                         */
                        pollIntervalSeconds?: number;
                    };
                    /** @description username_claim: the assertion claim holding the local username (the issuer must be authoritative for it) */
                    subjectClaim?: string;
                    /**
                     * @description How the assertion becomes a local user: linked_identity, the user linked to (upstreamProvider, sub) by upstream sign-in; user_id, the local user id itself; username_claim, the user whose username is the value of the claim subjectClaim
                     * @default linked_identity
                     * @enum {string}
                     */
                    subjectMapping?: "linked_identity" | "user_id" | "username_claim";
                    /** @description linked_identity: alias of the upstream provider whose account links name this issuer’s subjects */
                    upstreamProvider?: string;
                };
            };
        };
        responses: {
            /** @description The issuer */
            201: {
                headers: {
                    /** @description URL of the issuer */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TrustedIssuer"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getTrustedIssuer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                issuerId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The issuer */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TrustedIssuer"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteTrustedIssuer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                issuerId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateTrustedIssuer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                issuerId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description Replaced whole */
                    actors?: {
                        /** @description Identifier of one of this tenant’s NHEs */
                        nheIdentifier: string;
                        /** @description The assertion’s act.sub, exactly as the issuer writes it (e.g. nhe:orders-agent) */
                        subject: string;
                    }[];
                    /** @description JWS algorithms accepted on its assertions (asymmetric only) */
                    algorithms?: ("RS256" | "RS384" | "RS512" | "PS256" | "PS384" | "PS512" | "ES256" | "ES384" | "ES512" | "EdDSA")[];
                    /** @description Its assertions may carry `act` (a delegation, RFC 8693 section 4.1); otherwise such an assertion is refused */
                    allowAct?: boolean;
                    /** @description An assertion may be redeemed again until it expires; otherwise its jti is redeemable once */
                    allowReuse?: boolean;
                    /** @description `aud` values accepted besides this tenant's issuer and token endpoint (RFC 7523 section 3 item 3); URLs or URNs */
                    audiences?: string[];
                    /** @description null removes it */
                    description?: string | null;
                    /** @description A disabled issuer’s assertions are refused, from the next request on */
                    enabled?: boolean;
                    /** @description A subject that maps to nobody becomes a new user (linked_identity: linked to the upstream provider; username_claim: that username); user_id cannot create users */
                    jitProvisioning?: boolean;
                    /** @description URL of its JWK Set (fetched through the SSRF-safe outbound client, cached) */
                    jwksUri?: string;
                    /** @description Assertions live at most this long (exp - iat, and exp - now); longer ones are refused */
                    maxLifetimeSeconds?: number;
                    /** @description Replaced whole (a clientSecret left out is kept); null ends the subscription */
                    signals?: {
                        /** @description This tenant’s client at the issuer: client_credentials with the scope ssf.manage on its SSF audience (urn:idp:ssf) */
                        clientId: string;
                        /** @description Write-only; stored sealed. Required the first time; left out on an update, the stored one is kept */
                        clientSecret?: string;
                        /**
                         * @description Poll the issuer’s transmitter (off: the receiver stops and deletes its stream at the issuer; the settings are kept)
                         * @default true
                         */
                        enabled?: boolean;
                        /**
                         * @description Seconds between polls: the issuer’s part of the revocation bound
                         * @default 5
                         */
                        pollIntervalSeconds?: number;
                    } | null;
                    /** @description null removes it */
                    subjectClaim?: string | null;
                    /**
                     * @description How the assertion becomes a local user: linked_identity, the user linked to (upstreamProvider, sub) by upstream sign-in; user_id, the local user id itself; username_claim, the user whose username is the value of the claim subjectClaim
                     * @enum {string}
                     */
                    subjectMapping?: "linked_identity" | "user_id" | "username_claim";
                    /** @description null removes it */
                    upstreamProvider?: string | null;
                };
            };
        };
        responses: {
            /** @description The updated issuer */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TrustedIssuer"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listUpstreamProviders: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of providers */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UpstreamProviderPage"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createUpstreamProvider: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Upstream acr (SAML AuthnContextClassRef) → acr here; unmapped: urn:idp:acr:federated, which meets no requirement
                     * @default []
                     */
                    acrMap?: {
                        /** @enum {string} */
                        acr: "urn:idp:acr:pwd" | "urn:idp:acr:mfa";
                        upstream: string;
                    }[];
                    /** @description Names the provider in URLs and in the identity_provider claim; immutable */
                    alias: string;
                    /**
                     * @description Upstream amr value → amr values recorded here; unmapped values record nothing
                     * @default []
                     */
                    amrMap?: {
                        amr: ("pwd" | "otp" | "hwk" | "swk" | "sc" | "mfa")[];
                        upstream: string;
                    }[];
                    /**
                     * @description A first sign-in asserting a VERIFIED address in one of these domains links to the one local account with that address. Empty: never link by email
                     * @default []
                     */
                    authoritativeEmailDomains?: string[];
                    /** @description Shown on the login page: "Sign in with <displayName>" */
                    displayName: string;
                    /**
                     * @description Home-realm discovery: addresses in these domains sign in here
                     * @default []
                     */
                    emailDomains?: string[];
                    /**
                     * @description A disabled provider signs nobody in, from the next request on
                     * @default true
                     */
                    enabled?: boolean;
                    /**
                     * @description The tenant's people sign in only through this provider (no password form)
                     * @default false
                     */
                    exclusive?: boolean;
                    /**
                     * @description Create an account on a first sign-in that links to none
                     * @default true
                     */
                    jitProvisioning?: boolean;
                    /** @default [] */
                    mappers?: components["schemas"]["UpstreamMapper"][];
                    oidc?: {
                        acrValues?: string[];
                        authorizationEndpoint?: string;
                        /**
                         * @default client_secret_basic
                         * @enum {string}
                         */
                        clientAuthMethod?: "client_secret_basic" | "client_secret_post" | "private_key_jwt";
                        clientId: string;
                        /** @description Write-only; stored sealed. Needed by client_secret_basic and client_secret_post */
                        clientSecret?: string;
                        /** @description Default: <issuer>/.well-known/openid-configuration */
                        discoveryUrl?: string;
                        endSessionEndpoint?: string;
                        /** @default false */
                        fetchUserinfo?: boolean;
                        /** @description The OP's issuer identifier, exactly as its ID tokens carry it */
                        issuer: string;
                        jwksUri?: string;
                        /** @default true */
                        pkce?: boolean;
                        /**
                         * @default [
                         *       "openid",
                         *       "profile",
                         *       "email"
                         *     ]
                         */
                        scopes?: string[];
                        /**
                         * @description The stable subject claim (Entra ID: oid)
                         * @default sub
                         */
                        subjectClaim?: string;
                        tokenEndpoint?: string;
                        userinfoEndpoint?: string;
                    };
                    saml?: {
                        /** @description Where the IdP's metadata is published (re-read for certificate rotation) */
                        metadataUrl?: string;
                        /** @description The IdP's metadata document */
                        metadataXml?: string;
                        nameIdFormat?: string;
                        /** @default false */
                        signAuthnRequests?: boolean;
                        /** @description Our entity id at this IdP; default our SP metadata URL */
                        spEntityId?: string;
                    };
                    /** @enum {string} */
                    type: "oidc" | "saml";
                };
            };
        };
        responses: {
            /** @description The provider */
            201: {
                headers: {
                    /** @description URL of the provider */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UpstreamProvider"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getUpstreamProvider: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                alias: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The provider */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UpstreamProvider"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteUpstreamProvider: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                alias: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateUpstreamProvider: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                alias: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description Upstream acr (SAML AuthnContextClassRef) → acr here; unmapped: urn:idp:acr:federated, which meets no requirement */
                    acrMap?: {
                        /** @enum {string} */
                        acr: "urn:idp:acr:pwd" | "urn:idp:acr:mfa";
                        upstream: string;
                    }[];
                    /** @description Upstream amr value → amr values recorded here; unmapped values record nothing */
                    amrMap?: {
                        amr: ("pwd" | "otp" | "hwk" | "swk" | "sc" | "mfa")[];
                        upstream: string;
                    }[];
                    /** @description A first sign-in asserting a VERIFIED address in one of these domains links to the one local account with that address. Empty: never link by email */
                    authoritativeEmailDomains?: string[];
                    /** @description Shown on the login page: "Sign in with <displayName>" */
                    displayName?: string;
                    /** @description Home-realm discovery: addresses in these domains sign in here */
                    emailDomains?: string[];
                    /** @description A disabled provider signs nobody in, from the next request on */
                    enabled?: boolean;
                    /** @description The tenant's people sign in only through this provider (no password form) */
                    exclusive?: boolean;
                    /** @description Create an account on a first sign-in that links to none */
                    jitProvisioning?: boolean;
                    mappers?: components["schemas"]["UpstreamMapper"][];
                    oidc?: {
                        acrValues?: string[];
                        authorizationEndpoint?: string;
                        /**
                         * @default client_secret_basic
                         * @enum {string}
                         */
                        clientAuthMethod?: "client_secret_basic" | "client_secret_post" | "private_key_jwt";
                        clientId: string;
                        /** @description Write-only; stored sealed. Needed by client_secret_basic and client_secret_post */
                        clientSecret?: string;
                        /** @description Default: <issuer>/.well-known/openid-configuration */
                        discoveryUrl?: string;
                        endSessionEndpoint?: string;
                        /** @default false */
                        fetchUserinfo?: boolean;
                        /** @description The OP's issuer identifier, exactly as its ID tokens carry it */
                        issuer: string;
                        jwksUri?: string;
                        /** @default true */
                        pkce?: boolean;
                        /**
                         * @default [
                         *       "openid",
                         *       "profile",
                         *       "email"
                         *     ]
                         */
                        scopes?: string[];
                        /**
                         * @description The stable subject claim (Entra ID: oid)
                         * @default sub
                         */
                        subjectClaim?: string;
                        tokenEndpoint?: string;
                        userinfoEndpoint?: string;
                    };
                    saml?: {
                        /** @description Where the IdP's metadata is published (re-read for certificate rotation) */
                        metadataUrl?: string;
                        /** @description The IdP's metadata document */
                        metadataXml?: string;
                        nameIdFormat?: string;
                        /** @default false */
                        signAuthnRequests?: boolean;
                        /** @description Our entity id at this IdP; default our SP metadata URL */
                        spEntityId?: string;
                    };
                };
            };
        };
        responses: {
            /** @description The updated provider */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UpstreamProvider"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listUsers: {
        parameters: {
            query?: {
                cursor?: string;
                enabled?: "true" | "false";
                groupId?: string;
                limit?: number;
                usernamePrefix?: string;
            };
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of users */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserPage"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Standard OIDC claims (name, email, phone_number, address, ...) keyed by claim name
                     * @default {}
                     */
                    claims?: {
                        [key: string]: unknown;
                    };
                    /** @description custom_claims values (UserInfo only; a client script may replace them) */
                    customClaims?: {
                        [key: string]: unknown;
                    };
                    /** @default true */
                    enabled?: boolean;
                    /** @description external_groups claim */
                    externalGroups?: string[];
                    /** @description federated_identities claim (released as {identities: [...]}) */
                    federatedIdentities?: {
                        [key: string]: unknown;
                    }[];
                    /** @description GA4GH visa assertions signed into ga4gh_passport_v1 */
                    ga4ghVisas?: components["schemas"]["Ga4ghVisaAssertion"][];
                    /** @description identity_provider claim */
                    identityProvider?: string;
                    /** @description linked_identity claim */
                    linkedIdentity?: {
                        provider: string;
                        subject: string;
                    };
                    /** @description Without it the user cannot sign in with a password */
                    password?: string;
                    /** @description provider_claims claim: the upstream provider's claims */
                    providerClaims?: {
                        [key: string]: unknown;
                    };
                    username: string;
                };
            };
        };
        responses: {
            /** @description The user */
            201: {
                headers: {
                    /** @description URL of the user */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user (never the password hash or TOTP secret) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency could not confirm the change (`service-unavailable`); retrying the request is safe */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description Replaces the claims */
                    claims?: {
                        [key: string]: unknown;
                    };
                    /** @description custom_claims values (UserInfo only; a client script may replace them) */
                    customClaims?: {
                        [key: string]: unknown;
                    } | null;
                    enabled?: boolean;
                    /** @description external_groups claim */
                    externalGroups?: string[] | null;
                    /** @description federated_identities claim (released as {identities: [...]}) */
                    federatedIdentities?: {
                        [key: string]: unknown;
                    }[] | null;
                    /** @description GA4GH visa assertions signed into ga4gh_passport_v1 */
                    ga4ghVisas?: components["schemas"]["Ga4ghVisaAssertion"][] | null;
                    /** @description identity_provider claim */
                    identityProvider?: string | null;
                    /** @description linked_identity claim */
                    linkedIdentity?: {
                        provider: string;
                        subject: string;
                    } | null;
                    /** @description provider_claims claim: the upstream provider's claims */
                    providerClaims?: {
                        [key: string]: unknown;
                    } | null;
                    username?: string;
                };
            };
        };
        responses: {
            /** @description The updated user */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency could not confirm the change (`service-unavailable`); retrying the request is safe */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listUserGrants: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The grants */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["UserGrant"][];
                    };
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    revokeAllUserGrants: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description How many grants were withdrawn */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        revoked: number;
                    };
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency could not confirm the change (`service-unavailable`); retrying the request is safe */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    revokeUserGrant: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                grantId: string;
                tenantId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Withdrawn */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency could not confirm the change (`service-unavailable`); retrying the request is safe */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listUserPasskeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The passkeys, oldest first, and how many recovery codes the user has left */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserPasskeyList"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteUserPasskeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteUserPasskey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                credentialId: string;
                tenantId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createPasskeyEnrolmentLink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The link (shown once) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PasskeyEnrolmentLink"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    setUserPassword: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    password: string;
                };
            };
        };
        responses: {
            /** @description Password set */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createPasswordResetLink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /**
                     * @description How long the link works (seconds; 300 to 604800, default 28800)
                     * @default 28800
                     */
                    ttlSeconds?: number;
                };
            };
        };
        responses: {
            /** @description The link (shown once) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PasswordResetLink"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    assignRoleUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                roleId: string;
                tenantId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Assigned */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    unassignRoleUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                roleId: string;
                tenantId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Not assigned */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listUserSessions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The live sessions */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["UserSession"][];
                    };
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    endAllUserSessions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description How many sessions ended */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        ended: number;
                    };
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    endUserSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sessionId: string;
                tenantId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ended */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    enrolUserTotp: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The new secret (shown once) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TotpEnrolment"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    resetUserTotp: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description TOTP removed */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listUserUpstreamLinks: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The links */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["UpstreamLink"][];
                    };
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    linkUserUpstreamIdentity: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The provider's alias */
                    provider: string;
                    /** @description The upstream subject (OIDC subject claim or SAML NameID) */
                    subject: string;
                };
            };
        };
        responses: {
            /** @description The link */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UpstreamLink"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    unlinkUserUpstreamIdentity: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                provider: string;
                tenantId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    countUsers: {
        parameters: {
            query?: {
                enabled?: "true" | "false";
                groupId?: string;
                usernamePrefix?: string;
            };
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The number of matching users */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Count"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listWorkloadIssuers: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of issuers */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkloadIssuerPage"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createWorkloadIssuer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    description?: string;
                    /** @default true */
                    enabled?: boolean;
                    /** @description The `iss` of its JWTs, exactly (e.g. https://kubernetes.default.svc.cluster.local or spiffe://example.org) */
                    issuer: string;
                    /** @description https URL of its JWK Set (fetched SSRF-safely by the token-exchange sidecar, cached) */
                    jwksUri: string;
                };
            };
        };
        responses: {
            /** @description The issuer */
            201: {
                headers: {
                    /** @description URL of the issuer */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkloadIssuer"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getWorkloadIssuer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                issuerId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The issuer */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkloadIssuer"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteWorkloadIssuer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                issuerId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateWorkloadIssuer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                issuerId: string;
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description null removes it */
                    description?: string | null;
                    /** @description A disabled issuer authenticates nobody */
                    enabled?: boolean;
                    jwksUri?: string;
                };
            };
        };
        responses: {
            /** @description The updated issuer */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkloadIssuer"];
                };
            };
            /** @description Validation failed (`validation-error`, with `invalid_params`); also a body nested deeper than 32 levels of arrays and objects, or a body sent to an operation that takes none */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate) */
            401: {
                headers: {
                    /** @description Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`) */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such resource, or a tenant the caller may not reach (`not-found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body larger than 64 kB (`payload-too-large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body is not application/json (`unsupported-media-type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unexpected error (`internal-error`, no detail) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
}

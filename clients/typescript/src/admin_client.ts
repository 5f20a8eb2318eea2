/**
 * The operator's client (decisions.md §13): `/api/v1/admin/*` with the
 * service's operator token (`router.auth.operator_token`) as bearer. A
 * service without the setting answers these paths 404 `not_found`.
 *
 *   const admin = createAdminClient({ baseUrl, operatorToken });
 *   const { user_id, api_key } = await admin.users.add("ada");
 */
import type { components } from "./openapi.ts";
import { createTransport } from "./transport.ts";

type Schemas = components["schemas"];
export type AdminUser = Schemas["AdminUser"];
export type AddedUser = Schemas["AdminAddUserResponse"];
export type UserUpdate = Schemas["AdminUpdateUserRequest"];

export interface AdminClientOptions {
  baseUrl: string;
  operatorToken: string;
  fetch?: typeof fetch;
}

export interface AdminClient {
  users: {
    /** A new user and its first API key (named `initial`), shown only here. */
    add(name: string): Promise<AddedUser>;
    /** Every user, oldest first, with its budget and this UTC day's and month's spend. */
    list(): Promise<AdminUser[]>;
    /**
     * Renames, disables, enables or budgets a user; an omitted field keeps its
     * value, and in `budget` an omitted window keeps its limit, null removes it.
     */
    update(userId: string, update: UserUpdate): Promise<AdminUser>;
  };
}

export function createAdminClient(options: AdminClientOptions): AdminClient {
  // The operator token rides as the bearer token; there is nothing to sign in with or refresh.
  const transport = createTransport({
    baseUrl: options.baseUrl,
    token: options.operatorToken,
    refresh: false,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return {
    users: {
      add: (name) =>
        transport.json({
          method: "POST",
          path: "/api/v1/admin/users",
          body: { name },
          auth: "bearer",
        }),
      async list() {
        const listed = await transport.json<{ users: AdminUser[] }>({
          method: "GET",
          path: "/api/v1/admin/users",
          auth: "bearer",
        });
        return listed.users;
      },
      async update(userId, update) {
        const updated = await transport.json<{ user: AdminUser }>({
          method: "PUT",
          path: `/api/v1/admin/users/${encodeURIComponent(userId)}`,
          body: update,
          auth: "bearer",
        });
        return updated.user;
      },
    },
  };
}

/** `switchyard login` and `switchyard logout`. */
import { SwitchyardError } from "../errors.ts";
import { saveCredentials } from "./config_dir.ts";
import type { Context } from "./context.ts";

/**
 * A new user, made by the service's bootstrap. A service shared by a team
 * turns bootstrap off (its operator hands out keys), and its bare 403
 * `forbidden` would not tell the person what to do instead.
 */
async function bootstrap(ctx: Context) {
  try {
    return await ctx.client.auth.bootstrap();
  } catch (error) {
    if (error instanceof SwitchyardError && error.code === "forbidden") {
      throw new Error(
        `${ctx.url} does not create users on login (bootstrap is off): ask its operator for an ` +
          "API key, then run `switchyard login --api-key KEY` (or set SWITCHYARD_API_KEY)",
      );
    }
    throw error;
  }
}

/**
 * Signs in with the API key given (`--api-key`, `SWITCHYARD_API_KEY`) or
 * saved; with none, bootstraps a new user first. Key and token are saved
 * owner-only.
 */
export async function login(ctx: Context): Promise<void> {
  const auth = ctx.client.auth;
  const created = auth.credentials().apiKey === undefined;
  if (created) ctx.term.err(`created user ${(await bootstrap(ctx)).user_id}\n`);
  try {
    await auth.signIn();
  } catch (error) {
    if (error instanceof SwitchyardError && error.code === "invalid_api_key") {
      throw new Error("the service refused the API key (invalid_api_key)");
    }
    throw error;
  }
  const me = await auth.me();
  await ctx.save({ user_id: me.user_id });
  ctx.term.out(`logged in to ${ctx.url} as ${me.user_id}${created ? " (new user)" : ""}\n`);
}

export async function logout(ctx: Context): Promise<void> {
  if (ctx.saved.token) {
    try {
      await ctx.client.auth.signOut();
    } catch (error) {
      // An expired or revoked token is signed out already.
      if (!(error instanceof SwitchyardError && error.status === 401)) throw error;
    }
  }
  await saveCredentials(ctx.dir, { ...ctx.saved, token: undefined, expires_at: undefined });
  ctx.term.out("logged out; the API key stays saved for the next login\n");
}

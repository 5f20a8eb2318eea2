import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import type { Db } from "../store/db.ts";
import type { Params } from "./router.ts";

/** What every handler is given: the service's dependencies, created once in main.ts. */
export interface Deps {
  db: Db;
  config: Config;
  logger: Logger;
  now: () => Date;
  newId: () => string;
}

export interface Principal {
  userId: string;
  tokenId: string;
}

export interface RequestContext {
  request: Request;
  url: URL;
  params: Params;
  deps: Deps;
  /** Present on every route declared with `auth: "bearer"`. */
  principal: Principal;
}

export interface Endpoint {
  auth: "none" | "bearer";
  handle(ctx: RequestContext): Promise<Response>;
}

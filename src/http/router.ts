/**
 * A route table compiled once into one matching function. The result tells
 * "no such path" apart from "wrong method", so 404, 405 and `Allow` fall out.
 */

export type Params = Record<string, string>;

export interface Route<H> {
  method: string;
  /** Literal segments and `:name` parameters, e.g. `/api/v1/sessions/:session_id`. */
  path: string;
  handler: H;
}

export type Match<H> =
  | { kind: "found"; handler: H; params: Params; path: string }
  | { kind: "method_not_allowed"; allow: string[]; path: string }
  | { kind: "not_found" };

type Segment = { literal: string } | { param: string };

function compilePath(path: string): Segment[] {
  return path.split("/").filter(Boolean).map((s) =>
    s.startsWith(":") ? { param: s.slice(1) } : { literal: s }
  );
}

function matchSegments(pattern: Segment[], parts: string[]): Params | null {
  if (pattern.length !== parts.length) return null;
  const params: Params = {};
  for (let i = 0; i < pattern.length; i++) {
    const seg = pattern[i];
    if ("literal" in seg) {
      if (seg.literal !== parts[i]) return null;
    } else {
      params[seg.param] = parts[i];
    }
  }
  return params;
}

export function compileRoutes<H>(
  routes: readonly Route<H>[],
): (method: string, pathname: string) => Match<H> {
  const compiled = routes.map((r) => ({ ...r, segments: compilePath(r.path) }));
  return (method, pathname) => {
    let parts: string[];
    try {
      parts = pathname.split("/").filter(Boolean).map(decodeURIComponent);
    } catch {
      return { kind: "not_found" };
    }
    const allow: string[] = [];
    let path = "";
    for (const route of compiled) {
      const params = matchSegments(route.segments, parts);
      if (params === null) continue;
      if (route.method === method) {
        return { kind: "found", handler: route.handler, params, path: route.path };
      }
      allow.push(route.method);
      path = route.path;
    }
    return allow.length > 0 ? { kind: "method_not_allowed", allow, path } : { kind: "not_found" };
  };
}

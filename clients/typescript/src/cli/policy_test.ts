/**
 * `switchyard policy test <cases-dir> [--update]`: routing regression for a
 * team's own policy, offline. Each case (any `*.json` in the folder but
 * `catalog.json`, `policy.json` and the `*.golden.json` files) is a turn
 * request; it runs through the service's own pure routing core — the same
 * validation and decision code, imported, with no server and no network —
 * against the catalog snapshot `switchyard models --save` wrote, and the
 * decision must equal its golden file byte for byte.
 *
 * A case: `{ "description"?, "request": <turn request>, "credentials"?: ["openai"] }`.
 * The request's `policy` defaults to the folder's `policy.toml` or `policy.json`;
 * `credentials` (the providers a key is sent for) defaults to the snapshot's.
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import { basename, join, relative } from "node:path";
import type { Failure } from "../../../../src/core/errors.ts";
import type { ModelDescriptor, UnavailableEntry } from "../../../../src/core/model.ts";
import { isWellFormedProviderId } from "../../../../src/core/model_reference.ts";
import { previewTurn } from "../../../../src/core/preview.ts";
import { HTTP_STATUS } from "../../../../src/http/error_response.ts";
import { parseTurnRequest } from "../../../../src/http/turn_request.ts";
import { routingCatalog } from "../../../../src/providers/listing.ts";
import { buildRegistry } from "../../../../src/providers/registry.ts";
import type { CatalogSnapshot } from "./cmd_inspect.ts";
import { lineDiff } from "./line_diff.ts";
import { loadPolicy } from "./policy_file.ts";
import type { Terminal } from "./terminal.ts";

interface PolicyCase {
  request: Record<string, unknown>;
  credentials?: string[];
}

const RESERVED = new Set(["catalog.json", "policy.json"]);

async function caseFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...await caseFiles(path));
    else if (
      entry.name.endsWith(".json") && !entry.name.endsWith(".golden.json") &&
      !RESERVED.has(entry.name)
    ) {
      out.push(path);
    }
  }
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

async function folderPolicy(dir: string): Promise<unknown> {
  for (const name of ["policy.toml", "policy.json"]) {
    try {
      return await loadPolicy(join(dir, name));
    } catch (error) {
      if (!String((error as Error).message).startsWith("cannot read")) throw error;
    }
  }
  return undefined;
}

/** The decision's bytes: the preview body, or the error as `{ error: { status, code, message, details? } }`. */
function decide(snapshot: CatalogSnapshot, c: PolicyCase): string {
  const errorOf = (failure: Failure) => ({
    error: {
      status: HTTP_STATUS[failure.code],
      code: failure.code,
      message: failure.message,
      ...(failure.details === undefined ? {} : { details: failure.details }),
    },
  });
  const parsed = parseTurnRequest(c.request);
  if (!parsed.ok) return `${JSON.stringify(errorOf(parsed.failure), null, 2)}\n`;
  // Providers that were not listed still route on the shipped catalog, as in the service.
  const registry = buildRegistry();
  const catalog = routingCatalog(registry.ok ? registry.value : { providers: [] }, {
    models: snapshot.models as ModelDescriptor[],
    unavailable: snapshot.unavailable as UnavailableEntry[],
  });
  const out = previewTurn({
    request: parsed.value,
    catalog,
    unavailable: snapshot.unavailable as UnavailableEntry[],
    credential_providers: [...(c.credentials ?? snapshot.credential_providers)].sort(),
    known_providers: snapshot.providers,
    is_valid_provider_id: isWellFormedProviderId,
  });
  return `${JSON.stringify(out.ok ? out.value : errorOf(out.failure), null, 2)}\n`;
}

export async function policyTest(
  term: Terminal,
  dir: string,
  o: { update: boolean; catalog?: string },
): Promise<boolean> {
  const catalogPath = o.catalog ?? join(dir, "catalog.json");
  let snapshot: CatalogSnapshot;
  try {
    snapshot = JSON.parse(await readFile(catalogPath, "utf8"));
  } catch {
    throw new Error(
      `cannot read the catalog snapshot "${catalogPath}": write one with \`switchyard models --save ${catalogPath}\``,
    );
  }
  const policy = await folderPolicy(dir);
  const files = await caseFiles(dir);
  if (files.length === 0) {
    throw new Error(
      `no cases in "${dir}" (any *.json but catalog.json, policy.json, *.golden.json)`,
    );
  }
  let failed = 0;
  for (const file of files) {
    const name = relative(dir, file);
    const c = JSON.parse(await readFile(file, "utf8")) as PolicyCase;
    if (typeof c.request !== "object" || c.request === null) {
      throw new Error(`${name}: a case needs a "request" object`);
    }
    const request = c.request.policy === undefined && policy !== undefined
      ? { ...c.request, policy }
      : c.request;
    const now = decide(snapshot, { ...c, request });
    const goldenPath = file.replace(/\.json$/, ".golden.json");
    const golden = await readFile(goldenPath, "utf8").catch(() => undefined);
    if (golden === now) {
      term.out(`ok      ${name}\n`);
    } else if (o.update) {
      await writeFile(goldenPath, now);
      term.out(
        `${golden === undefined ? "written" : "updated"} ${name} → ${basename(goldenPath)}\n`,
      );
    } else {
      failed++;
      term.out(
        golden === undefined
          ? `FAIL    ${name}: no golden file; run with --update to write ${basename(goldenPath)}\n`
          : `FAIL    ${name}: the decision differs from ${
            basename(goldenPath)
          } (- golden, + now)\n${lineDiff(golden, now)}\n`,
      );
    }
  }
  term.out(`${files.length - failed} passed, ${failed} failed\n`);
  return failed === 0;
}

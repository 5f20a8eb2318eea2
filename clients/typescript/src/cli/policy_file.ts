/**
 * A policy file as the user writes it: TOML (`.toml`) or JSON (anything
 * else), holding the `policy` block of a turn request. Checked for shape by
 * the service (or by `policy test`, with the service's own validation).
 */
import { readFile } from "node:fs/promises";
import { parse as parseToml } from "smol-toml";
import type { Policy } from "../types.ts";

export async function loadPolicy(path: string): Promise<Policy> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    throw new Error(`cannot read policy file "${path}"`);
  }
  let parsed: unknown;
  try {
    parsed = path.endsWith(".toml") ? parseToml(text) : JSON.parse(text);
  } catch (error) {
    const first = String((error as Error).message).split("\n")[0];
    throw new Error(
      `policy file "${path}" is not valid ${path.endsWith(".toml") ? "TOML" : "JSON"}: ${first}`,
    );
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new Error(`policy file "${path}" must hold a table of policy blocks`);
  }
  return parsed as Policy;
}

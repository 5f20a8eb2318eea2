import { describe, test } from "node:test";
import { KEY, replay } from "./listing_replay.ts";

const openai = { provider: "openai", dir: "openai", settings: { path: "/v1" }, key: KEY };

describe("OpenAI model listing", () => {
  test("lists chat models merged with the catalog, sending the key as a Bearer token", async () => {
    await replay({ ...openai, fixtures: ["list_page"] });
  });

  test("reports a rejected key as invalid_credentials", async () => {
    await replay({ ...openai, fixtures: ["list_401"] });
  });

  test("reports a server error as provider_unavailable", async () => {
    await replay({ ...openai, fixtures: ["list_500"] });
  });

  test("reports an answer past the deadline as timeout", async () => {
    await replay({ ...openai, fixtures: ["list_slow"], deadlineMs: 200 });
  });

  test("lists a keyless compatible instance with its instance defaults", async () => {
    await replay({
      provider: "openai-compat:local",
      dir: "openai",
      fixtures: ["list_compat_keyless"],
      settings: { path: "/v1", local: true },
    });
  });
});

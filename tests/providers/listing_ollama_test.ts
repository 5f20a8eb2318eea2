import { describe, test } from "node:test";
import { replay } from "./listing_replay.ts";

const ollama = { provider: "ollama", dir: "ollama" };

describe("Ollama model listing", () => {
  test("lists the pulled models from /api/tags without credentials", async () => {
    await replay({ ...ollama, fixtures: ["list_page"] });
  });

  test("reports a server error as provider_unavailable", async () => {
    await replay({ ...ollama, fixtures: ["list_500"] });
  });

  test("reports an answer past the deadline as timeout", async () => {
    await replay({ ...ollama, fixtures: ["list_slow"], deadlineMs: 200 });
  });
});

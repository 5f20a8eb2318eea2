import { describe, test } from "node:test";
import { KEY, replay } from "./listing_replay.ts";

const anthropic = { provider: "anthropic", dir: "anthropic", key: KEY };

describe("Anthropic model listing", () => {
  test("lists one page with x-api-key and anthropic-version, adding dated aliases", async () => {
    await replay({ ...anthropic, fixtures: ["list_page"] });
  });

  test("a listed window smaller than the catalog's wins; the catalog fills the prices", async () => {
    await replay({ ...anthropic, fixtures: ["list_page_smaller_window"] });
  });

  test("follows has_more and last_id through after_id across two pages", async () => {
    await replay({ ...anthropic, fixtures: ["list_paged_1", "list_paged_2"] });
  });

  test("reports a rejected key as invalid_credentials", async () => {
    await replay({ ...anthropic, fixtures: ["list_401"] });
  });

  test("reports a server error as provider_unavailable", async () => {
    await replay({ ...anthropic, fixtures: ["list_500"] });
  });

  test("reports an answer past the deadline as timeout", async () => {
    await replay({ ...anthropic, fixtures: ["list_slow"], deadlineMs: 200 });
  });
});

import { describe, test } from "node:test";
import { KEY, replay } from "./listing_replay.ts";

const gemini = { provider: "gemini", dir: "gemini", key: KEY };

describe("Gemini model listing", () => {
  test("keeps generateContent models without the models/ prefix, key in x-goog-api-key", async () => {
    await replay({ ...gemini, fixtures: ["list_page"] });
  });

  test("follows nextPageToken through pageToken across two pages", async () => {
    await replay({ ...gemini, fixtures: ["list_paged_1", "list_paged_2"] });
  });

  test("reports HTTP 401 as invalid_credentials", async () => {
    await replay({ ...gemini, fixtures: ["list_401"] });
  });

  test("reports a 400 API_KEY_INVALID as invalid_credentials", async () => {
    await replay({ ...gemini, fixtures: ["list_bad_key"] });
  });

  test("reports a server error as provider_unavailable", async () => {
    await replay({ ...gemini, fixtures: ["list_500"] });
  });

  test("reports an answer past the deadline as timeout", async () => {
    await replay({ ...gemini, fixtures: ["list_slow"], deadlineMs: 200 });
  });
});

import { VERSION } from "../../version.ts";
import type { Endpoint } from "../context.ts";
import { jsonResponse } from "../error_response.ts";
import openapi from "../openapi.json" with { type: "json" };

export const getStatus: Endpoint = {
  auth: "none",
  handle: () => Promise.resolve(jsonResponse({ status: "ok", version: VERSION })),
};

const openapiText = JSON.stringify(openapi);

export const getOpenApi: Endpoint = {
  auth: "none",
  handle: () =>
    Promise.resolve(
      new Response(openapiText, { headers: { "content-type": "application/json" } }),
    ),
};

/** The running service version, reported by `GET /status` and the OpenAPI document. */
export const VERSION = "0.1.0-alpha.1";

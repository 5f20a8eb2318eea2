import { anthropicMessagesAdapter } from "../../src/providers/anthropic_messages.ts";
import { conformanceSuite } from "./conformance.ts";

conformanceSuite("anthropic", anthropicMessagesAdapter);

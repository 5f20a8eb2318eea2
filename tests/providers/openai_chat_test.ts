import { openAiChatAdapter } from "../../src/providers/openai_chat.ts";
import { conformanceSuite } from "./conformance.ts";

// The default base URL is https://api.openai.com/v1: fixture paths carry the /v1.
conformanceSuite("openai", openAiChatAdapter, "/v1");

import { geminiAdapter } from "../../src/providers/gemini.ts";
import { conformanceSuite } from "./conformance.ts";

conformanceSuite("gemini", geminiAdapter);

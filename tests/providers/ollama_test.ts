import { ollamaAdapter } from "../../src/providers/ollama.ts";
import { conformanceSuite } from "./conformance.ts";

conformanceSuite("ollama", ollamaAdapter);

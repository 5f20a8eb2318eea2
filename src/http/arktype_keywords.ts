/**
 * Imported before arktype itself (see ark.ts): arktype builds its whole
 * keyword library as it loads, and would compile every keyword to JavaScript.
 */
import { configure } from "arktype/config";

configure({ jitless: true });

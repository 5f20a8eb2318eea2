/**
 * The grammar of provider ids is the routing core's (core/model_reference.ts):
 * one definition, so a reference the request checks accept is one the
 * registry and the credential headers accept too. Re-exported here for the
 * provider modules that already import it from this file.
 */
export {
  checkProviderId,
  COMPAT_PREFIX,
  isWellFormedProviderId,
  type ProviderIdForm,
} from "../core/model_reference.ts";

/** API keys: formats, hashing, storage, allowlists (the package boundary other code imports). */

export { ALL_SCOPES, EPHEMERAL_SCOPES, isScope, type Scope } from '../../contract/scopes.js';
export { ipAllowed, parseCidr, validateAllowlist } from './allowlist.js';
export { forgetCachedKeys, KEY_CACHE_TTL_MS } from './cache.js';
export { generateSecret, type KeyKind, parseSecret, secretHint } from './format.js';
export { hashSecret } from './hash.js';
export { ensureInitialTestKey } from './initial-key.js';
export { type ApiKeyRecord, type KeyState, keyState } from './record.js';
export {
  type CreateKeyOptions,
  createKey,
  findKeyBySecret,
  getKey,
  KeyOptionsError,
  listKeys,
  revokeKey,
} from './store.js';

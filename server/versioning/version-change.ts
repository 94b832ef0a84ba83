/**
 * The version-change module format lives in `contract/version-change.ts` (the modules in
 * `spec/versions/` import nothing from the server); the server's versioning code reads it here.
 */
export type {
  DocumentEdit,
  Down,
  EditTarget,
  Json,
  JsonObject,
  RequestParts,
  RequestUp,
  VersionChange,
} from '../../contract/version-change.js';
export {
  defineVersion,
  editTarget,
  fillVersionLists,
  noConversions,
  VERSION_LIST_POINTERS,
} from '../../contract/version-change.js';

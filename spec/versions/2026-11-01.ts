/**
 * 2026-11-01: the first dated version of `/v1`. Nothing precedes it, so it converts nothing;
 * its module exists so the supported versions are exactly the modules' dates.
 */
import { noConversions, type VersionChange } from '../../server/versioning/version-change.js';

export const change: VersionChange = {
  date: '2026-11-01',
  description: 'First public version of /v1.',
  changelog: [],
  ...noConversions(),
};

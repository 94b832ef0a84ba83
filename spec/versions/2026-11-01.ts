/**
 * 2026-11-01: the first dated version of `/v1`. Nothing precedes it, so it converts nothing;
 * its module exists so the supported versions are exactly the modules' dates.
 */
import { defineVersion, noConversions } from '../../contract/version-change.js';

export const change = defineVersion({
  date: '2026-11-01',
  description: 'First public version of /v1.',
  changelog: [],
  ...noConversions(),
});

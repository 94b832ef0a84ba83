import type { Dialect } from '../types.js';

/** One schema step. Versions only grow; an applied migration is never edited. */
export interface Migration {
  version: number;
  name: string;
  /** The statements, one per entry, for the given engine. */
  up: (dialect: Dialect) => string[];
}

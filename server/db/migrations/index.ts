import { initial } from './0001-initial.js';
import { auditBatches } from './0002-audit-batches.js';
import { idempotencyNamespace } from './0003-idempotency-namespace.js';
import { keyBindings } from './0004-key-bindings.js';
import { accountApiVersion } from './0005-account-api-version.js';
import { auditApiVersion } from './0006-audit-api-version.js';
import { eventsCreated } from './0007-events-created.js';
import { dropClaimSchedule } from './0008-drop-claim-schedule.js';
import { auditActor } from './0009-audit-actor.js';
import { auditChain } from './0010-audit-chain.js';
import { practitioners } from './0011-practitioners.js';
import type { Migration } from './migration.js';

/** Every migration, oldest first. Append new ones; never reorder or edit applied ones. */
export const migrations: readonly Migration[] = [
  initial,
  auditBatches,
  idempotencyNamespace,
  keyBindings,
  accountApiVersion,
  auditApiVersion,
  eventsCreated,
  dropClaimSchedule,
  auditActor,
  auditChain,
  practitioners,
];

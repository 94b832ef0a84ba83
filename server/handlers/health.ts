/**
 * Health probes (`security: []` in the spec): liveness answers without touching anything;
 * readiness checks that the database answers and has every migration of this build. The
 * report names failed checks only, never an address or an error text.
 */
import { pendingMigrations } from '../db/migrate.js';
import type { AppHandler } from './types.js';

/** GET /healthz */
export const checkLiveness: AppHandler<'checkLiveness'> = async () => ({
  status: 200,
  body: { object: 'health', status: 'ok', checks: {} },
});

/** GET /readyz */
export const checkReadiness: AppHandler<'checkReadiness'> = async (_request, ctx) => {
  let database: 'ok' | 'unavailable' = 'ok';
  let migrations: 'ok' | 'pending' | 'unknown' = 'unknown';
  try {
    await ctx.db.get('SELECT 1 AS ok');
    migrations = (await pendingMigrations(ctx.db)).length === 0 ? 'ok' : 'pending';
  } catch (error) {
    database = 'unavailable';
    // The code only: a driver's message can name the database URL.
    ctx.log.warn(
      { code: (error as { code?: unknown }).code },
      'readiness: the database did not answer',
    );
  }
  const ready = database === 'ok' && migrations === 'ok';
  const body = {
    object: 'health' as const,
    status: ready ? ('ok' as const) : ('unavailable' as const),
    checks: { database, migrations },
  };
  return ready ? { status: 200, body } : { status: 503, body };
};

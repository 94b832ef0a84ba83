/** What `patient-care backup`/`restore` hand to pg_dump and pg_restore from a DATABASE_URL. */
import { describe, expect, it } from 'vitest';
import { pgTarget, withSchema } from '../../server/backup/postgres.js';

describe('pgTarget', () => {
  it('moves the password out of the URL into PGPASSWORD', () => {
    const target = pgTarget('postgres://clinic:s%40cret@db.example:5432/care');
    expect(target.dbname).toBe('postgres://clinic@db.example:5432/care');
    expect(target.env).toEqual({ PGPASSWORD: 's@cret' });
    expect(target.schema).toBeUndefined();
  });

  it('reads the schema of search_path, and percent-encodes the query for libpq', () => {
    // URLSearchParams writes a space as "+", which libpq would pass on as a plus sign.
    const target = pgTarget('postgres://127.0.0.1/test?options=-c+search_path%3Dt_1');
    expect(target.schema).toBe('t_1');
    expect(target.dbname).toBe('postgres://127.0.0.1/test?options=-c%20search_path%3Dt_1');
    expect(target.env).toEqual({});
  });

  it('keeps other parameters (a Unix socket folder)', () => {
    const target = pgTarget('postgres://care@localhost/care?host=/var/run/postgresql');
    expect(target.dbname).toBe('postgres://care@localhost/care?host=%2Fvar%2Frun%2Fpostgresql');
  });

  it('refuses a URL that does not parse without echoing it', () => {
    expect(() => pgTarget('postgres://user:pw@[bad')).toThrow(/does not parse$/);
  });
});

describe('withSchema', () => {
  it('sets search_path, replacing one the URL named', () => {
    expect(withSchema('postgres://127.0.0.1/r?options=-c%20search_path%3Dold', 'new_1')).toBe(
      'postgres://127.0.0.1/r?options=-c%20search_path%3Dnew_1',
    );
  });
});

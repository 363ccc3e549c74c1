// Which errors of the PostgreSQL driver mean the server is out of reach: the ones a restart or a
// stop gives (measured against a real server: -m fast gives 57P01 then 57P03 or ECONNREFUSED,
// -m immediate "Connection terminated unexpectedly"), and not a statement's refusal.
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { isPostgresFull, isPostgresUnreachable, unreachableReason } from '../src/postgres-outages';

const sqlState = (code: string, message = 'refused') => Object.assign(new pg.DatabaseError(message, 0, 'error'), { code });
const systemError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code });

describe('PostgreSQL out of reach', () => {
  it('knows a server going away, starting, stopped or refusing connections', () => {
    for (const error of [
      sqlState('57P01', 'terminating connection due to administrator command'),
      sqlState('57P03', 'the database system is starting up'),
      sqlState('08006'),
      sqlState('53300', 'sorry, too many clients already'),
      systemError('ECONNREFUSED'),
      systemError('ECONNRESET'),
      new Error('Connection terminated unexpectedly'),
      new Error('Connection terminated due to connection timeout'),
      new AggregateError([systemError('ECONNREFUSED'), systemError('ECONNREFUSED')], ''),
    ]) {
      expect(isPostgresUnreachable(error), String(error)).toBe(true);
    }
  });

  it('leaves a statement refused by a working server, and anything else, as it is', () => {
    for (const error of [sqlState('23505'), sqlState('40001'), sqlState('55P03'), sqlState('53100'), new Error('timeout exceeded when trying to connect'), new TypeError('x'), 'text']) {
      expect(isPostgresUnreachable(error), String(error)).toBe(false);
    }
    expect(isPostgresFull(sqlState('53100', 'could not extend file: No space left on device'))).toBe(true);
    expect(isPostgresFull(sqlState('23505'))).toBe(false);
  });

  it('names the reason, each address of a refused localhost included', () => {
    expect(unreachableReason(new AggregateError([new Error('connect ECONNREFUSED ::1:5432'), new Error('connect ECONNREFUSED 127.0.0.1:5432')], ''))).toBe(
      'connect ECONNREFUSED ::1:5432; connect ECONNREFUSED 127.0.0.1:5432',
    );
  });
});

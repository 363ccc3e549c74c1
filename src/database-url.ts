// PostgreSQL connection URLs, shared by the two parts of the project that can keep their data in
// PostgreSQL: the management API's store and the bucket runtime (neither imports the other).
/** A checked PostgreSQL connection URL and a form of it that is safe to print. */
export interface DatabaseUrl {
  /** The URL as given, credentials included: hand it to the driver, never to a log. */
  readonly connectionString: string;
  /** The same URL without its password, for error messages and logs. */
  readonly location: string;
}

const EXAMPLE = 'postgres://user:password@localhost:5432/api';

/**
 * Checks that `text` is a postgres:// (or postgresql://) URL naming a server and a database.
 * Error messages call it `label` and never repeat the text, which may hold a password.
 */
export function parseDatabaseUrl(text: string, label = 'the database URL'): DatabaseUrl {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TypeError(`${label} is not a URL; expected one like ${EXAMPLE}`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new TypeError(`${label} must start with postgres:// or postgresql://, not ${url.protocol}//`);
  }
  // libpq lets a `host` query parameter (a socket directory) stand in for the host part.
  if (url.hostname === '' && !url.searchParams.has('host')) {
    throw new TypeError(`${label} names no host; expected one like ${EXAMPLE}`);
  }
  if (decodeURIComponent(url.pathname.slice(1)) === '') {
    throw new TypeError(`${label} names no database; expected one like ${EXAMPLE}`);
  }
  return { connectionString: text, location: withoutPassword(url) };
}

function withoutPassword(url: URL): string {
  const safe = new URL(url.href);
  safe.password = '';
  for (const secret of ['password', 'sslpassword']) {
    if (safe.searchParams.has(secret)) {
      safe.searchParams.set(secret, '***');
    }
  }
  return safe.href;
}

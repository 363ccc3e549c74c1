import type { IncomingHttpHeaders } from 'node:http';
import { ApiError, Codes } from '../http/errors';
import type { CredentialRegistry, Principal } from './credentials';

// RFC 6750 b64token, which covers the platform's 40-character tokens.
const bearerPattern = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/;
const emailPattern = /^[^\s@]+@[^\s@]+$/;
const keyPattern = /^[\x21-\x7e]+$/;

function invalidHeader(detail: string): never {
  throw ApiError.of(400, Codes.invalidHeaders, `Invalid request headers: ${detail}`);
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return (Array.isArray(value) ? value.join(',') : value)?.trim();
}

/**
 * Finds the principal behind a request's credentials, or throws the real service's answer:
 * 400 (9106) with no credentials, 400 (6003) for malformed headers, 403 (10000) for unknown ones.
 */
export function authenticate(headers: IncomingHttpHeaders, registry: CredentialRegistry): Principal {
  const authorization = header(headers, 'authorization');
  const email = header(headers, 'x-auth-email');
  const key = header(headers, 'x-auth-key');

  let principal: Principal | null;
  if (authorization !== undefined) {
    const match = bearerPattern.exec(authorization);
    if (!match) invalidHeader('invalid format for Authorization header (expected "Bearer <API_TOKEN>")');
    principal = registry.findToken(match[1]!);
  } else {
    if (email === undefined && key === undefined) {
      throw ApiError.of(400, Codes.missingCredentials, 'Missing X-Auth-Key, X-Auth-Email or Authorization headers');
    }
    if (email === undefined) invalidHeader('X-Auth-Key needs X-Auth-Email beside it');
    if (key === undefined) invalidHeader('X-Auth-Email needs X-Auth-Key beside it');
    if (!emailPattern.test(email)) invalidHeader('invalid format for X-Auth-Email header');
    if (!keyPattern.test(key)) invalidHeader('invalid format for X-Auth-Key header');
    principal = registry.findKey(email, key);
  }
  if (!principal) throw ApiError.of(403, Codes.authentication, 'Authentication error');
  return principal;
}

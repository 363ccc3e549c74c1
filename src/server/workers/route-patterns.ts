/**
 * Route patterns as the platform takes them: `host/path`, `*` only at the start of the host
 * (`*.example.com`, `*example.com`) and anywhere in the path, the host lower case, no scheme.
 * A pattern belongs to a zone when its host, wildcard aside, is the zone's name or below it.
 */
import { badRequest } from '../http/errors';
import { WorkerCodes } from './upload';

const HOST = /^(\*\.?)?([a-z0-9](?:[a-z0-9-]*[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/;

/** The host of a pattern without its leading wildcard; refuses a pattern of the wrong form. */
export function patternHost(pattern: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(pattern)) {
    throw badRequest(`route pattern ${pattern}: leave out the scheme (routes match http and https alike)`, WorkerCodes.invalid);
  }
  if (/\s/.test(pattern)) throw badRequest(`route pattern ${JSON.stringify(pattern)} holds white space`, WorkerCodes.invalid);
  const slash = pattern.indexOf('/');
  const host = slash < 0 ? pattern : pattern.slice(0, slash);
  if (!HOST.test(host)) {
    throw badRequest(`route pattern ${pattern}: its host must be a lower-case hostname, with * only at its start`, WorkerCodes.invalid);
  }
  return host.replace(/^\*\.?/, '');
}

export function patternInZone(pattern: string, zoneName: string): boolean {
  const host = patternHost(pattern);
  return host === zoneName || host.endsWith(`.${zoneName}`);
}

export function requirePatternInZone(pattern: string, zoneName: string): void {
  if (!patternInZone(pattern, zoneName)) {
    throw badRequest(`Route pattern must include zone name: ${pattern} is not in zone ${zoneName}`, WorkerCodes.routeNotInZone);
  }
}

import { SecretSealError, type SecretBox } from '../workers/secret-box';

/**
 * Log push destinations at rest: a `destination_conf` that carries credentials (an r2 or S3
 * destination's secret access key, a datadog or New Relic key, an authorization header, a signed
 * URL's signature, a Sumo Logic collector's token) is sealed with the platform's secrets key (the
 * one workers' secrets are sealed with), bound to its job; one that carries none (a bucket and a
 * region) is kept as written. Rows the seed or an earlier version wrote in plain text read as they are.
 */
const SEALED = /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export function destinationPlace(jobId: number): string {
  return `logpush-job/${jobId}`;
}

/** Query parameters that hold a credential, by name. */
const SECRET_PARAMETER = /secret|key|token|sig|password|authorization|credential|^header_/i;

export function carriesSecret(destinationConf: string): boolean {
  if (/^sumo:/i.test(destinationConf)) return true;
  const query = destinationConf.indexOf('?');
  if (query === -1) return false;
  return [...new URLSearchParams(destinationConf.slice(query + 1)).keys()].some((name) => SECRET_PARAMETER.test(name));
}

export function sealDestination(secrets: () => SecretBox, jobId: number, destinationConf: string): string {
  return carriesSecret(destinationConf) ? secrets().seal(destinationConf, destinationPlace(jobId)) : destinationConf;
}

/**
 * The destination as written. One sealed under another key reads as a sentence saying so, which
 * no delivery takes for a destination (the job then reports it), rather than failing every read.
 */
export function openDestination(secrets: () => SecretBox, jobId: number, stored: string): string {
  if (!SEALED.test(stored)) return stored;
  try {
    return secrets().open(stored, destinationPlace(jobId));
  } catch (error) {
    if (!(error instanceof SecretSealError)) throw error;
    return `(a destination sealed under another secrets key: ${error.message})`;
  }
}

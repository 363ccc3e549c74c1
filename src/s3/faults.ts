/**
 * Faults on purpose at the S3 endpoint: rules matched by S3 operation and bucket, injected after
 * the signature and the routing and before the operation runs (a request failed on purpose
 * changes nothing), and `/__faults`, their control, signed like any S3 request.
 */
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { dropConnection, FaultRulesError, FaultSet, splitFaces, type FaultLogEntry } from '../faults';
import { bodyOf, type S3Context, type S3Response } from './context';
import { accessDenied, invalidArgument, S3Error } from './errors';
import { readSmallBody } from './payload';
import type { S3Request } from './request';
import { OPERATION_NAMES, type OperationName } from './router';

export const FAULTS_PATH = '/__faults';

/** The largest rules document `/__faults` takes. */
const MAX_RULES_BYTES = 1024 * 1024;

/** A 200 the mid-response drop starts to send: an XML document, cut in half. */
const PARTIAL_DOCUMENT = {
  headers: { 'content-type': 'application/xml' },
  body: '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"></ListBucketResult>',
};

/** The S3 face's rules, checked against the operations the router names; each injection logged as one line. */
export function s3FaultSet(log: (line: string) => void): FaultSet {
  return new FaultSet('s3', { operations: new Set(OPERATION_NAMES) }, (entry: FaultLogEntry) =>
    log(`fault injected: rule "${entry.fault}" ${entry.method} ${entry.path} (${entry.operation}): ${entry.effect}`),
  );
}

/** Checks rules as the endpoint would install them, before anything listens: a FaultRulesError lists every problem. */
export function checkS3FaultRules(list: unknown, source: string): void {
  s3FaultSet(() => {}).replace(list, source);
}

/**
 * Applies the fault a rule has for this request, if any: waits, then answers its S3 error
 * (thrown, with Retry-After when the rule gives one) or drops the connection ('dropped': nothing
 * more may be written). A delay alone lets the operation run afterwards.
 */
export async function injectFault(faults: FaultSet, request: S3Request, operation: OperationName, outgoing: ServerResponse): Promise<'dropped' | undefined> {
  if (faults.size === 0) return undefined;
  // The path only, as logs never hold a query (a presigned URL's signature).
  const fault = faults.decide({ method: request.method, path: request.rawPath, operation, bucket: request.bucket });
  if (fault === undefined) return undefined;
  const { effect } = fault;
  if (effect.delayMs > 0) await sleep(effect.delayMs);
  if (effect.drop !== undefined) {
    dropConnection(outgoing, effect.drop, PARTIAL_DOCUMENT);
    return 'dropped';
  }
  if (effect.status !== undefined) {
    throw new S3Error(effect.code!, effect.status, effect.message!, {}, effect.retryAfter === undefined ? {} : { 'retry-after': String(effect.retryAfter) });
  }
  return undefined;
}

/**
 * `/__faults` on the S3 endpoint: GET lists the S3 rules with their counters, PUT replaces them
 * with the `s3` list of a JSON body shaped like a faults file, DELETE removes them. Signed with
 * one of the endpoint's access keys (never anonymous); rules come and go as JSON, refusals as
 * S3's XML errors.
 */
export async function controlFaults(context: S3Context, faults: FaultSet): Promise<S3Response> {
  const { request } = context;
  if (context.signer === null) throw accessDenied(`Access Denied. ${FAULTS_PATH} takes a request signed with one of the endpoint's access keys.`);
  switch (request.method) {
    case 'GET':
    case 'HEAD':
      return listing(faults);
    case 'PUT': {
      const text = await readSmallBody(bodyOf(context), MAX_RULES_BYTES);
      let document: unknown;
      try {
        document = JSON.parse(text);
      } catch (error) {
        throw invalidArgument(`The body is not JSON: ${(error as Error).message}.`);
      }
      try {
        const { api, s3 } = splitFaces(document, 'body');
        if (api !== undefined) throw invalidArgument(`body: api rules are set on the management API's own ${FAULTS_PATH}; this one holds the S3 endpoint's.`);
        faults.replace(s3 ?? [], 'body');
      } catch (error) {
        if (error instanceof FaultRulesError) throw invalidArgument(error.message);
        throw error;
      }
      return listing(faults);
    }
    case 'DELETE':
      faults.clear();
      return listing(faults);
  }
  throw new S3Error('MethodNotAllowed', 405, `The specified method ${request.method} is not allowed against ${FAULTS_PATH}.`, {}, { allow: 'GET, PUT, DELETE' });
}

function listing(faults: FaultSet): S3Response {
  return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ s3: faults.list() }) };
}

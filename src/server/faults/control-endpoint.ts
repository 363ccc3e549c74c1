import express, { type NextFunction, type Request, type Response } from 'express';
import { FaultRulesError, splitFaces, type FaultSet } from '../../faults';
import { authenticate } from '../auth/authenticate';
import type { CredentialRegistry } from '../auth/credentials';
import { resultSender, sendError } from '../http/envelope';
import { ApiError, Codes } from '../http/errors';

export const FAULTS_PATH = '/__faults';

/**
 * `/__faults`, the stand-in's own control endpoint beside `/readyz` (outside `/client/v4` and
 * the document, which describe the platform's API): GET lists the API's fault rules with their
 * counters, PUT replaces them with the `api` list of a JSON body shaped like a faults file, DELETE
 * removes them all. It takes the API's own credentials, and only those that reach everything:
 * faults apply to every user of the server. Answers are the API's envelope.
 */
export function faultsEndpoint(faults: FaultSet, credentials: CredentialRegistry): express.Router {
  const router = express.Router();
  const sendResult = resultSender(JSON.stringify);
  const listing = (res: Response) => sendResult(res, { api: faults.list() }, undefined, false);
  router.use((req: Request, _res: Response, next: NextFunction) => {
    const principal = authenticate(req.headers, credentials);
    if (principal.scope.accounts !== null || principal.scope.zones !== null) {
      throw ApiError.of(403, Codes.notAuthorized, `${FAULTS_PATH} changes the server for every user: it takes a credential that reaches every account`);
    }
    next();
  });
  router.get('/', (_req, res) => listing(res));
  router.put('/', express.json({ limit: '1mb', type: () => true }), (req, res) => {
    // No body at all: the parser leaves none.
    if (req.body === undefined) throw ApiError.of(400, Codes.invalidRequest, 'body must be a JSON object with an "api" list of fault rules');
    const { api, s3 } = splitFaces(req.body, 'body');
    if (s3 !== undefined) {
      throw ApiError.of(400, Codes.invalidRequest, `body: s3 rules are set on the S3 endpoint's own ${FAULTS_PATH}; this one holds the API's`);
    }
    faults.replace(api ?? [], 'body');
    listing(res);
  });
  router.delete('/', (_req, res) => {
    faults.clear();
    listing(res);
  });
  router.all('/', (req, res) => {
    res.setHeader('Allow', 'GET, PUT, DELETE');
    sendError(res, ApiError.of(405, Codes.methodNotAllowed, `Method ${req.method} not allowed on ${FAULTS_PATH}`));
  });
  // Rules refused: one envelope error per problem, each naming the rule and the field.
  router.use((error: unknown, _req: Request, _res: Response, next: NextFunction) => {
    if (error instanceof FaultRulesError) {
      return next(new ApiError(400, error.problems.map((problem) => ({ code: Codes.invalidRequest, message: `${error.source}: ${problem}` }))));
    }
    next(error);
  });
  return router;
}

/**
 * Reads a worker upload's form before the validator sees the request: the parts are kept on the
 * request for the handler, the validator is given an empty form (the document describes the
 * parts; the upload's own checks read them), and a form sent as `application/javascript` (the
 * official client's) is described to it as the multipart form it is.
 */
import type { Request } from 'express';
import { formBoundary, parseForm, readWholeBody, type FormRequest } from './form';

export async function readWorkerForm(req: Request & FormRequest): Promise<void> {
  const body = await readWholeBody(req);
  const boundary = formBoundary(req.headers['content-type'], body);
  req.workerForm = parseForm(body, boundary);
  req.headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
  req.body = {};
}

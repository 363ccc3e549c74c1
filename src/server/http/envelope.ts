import type { Response } from 'express';
import type { components } from '../../../generated/api';
import { RecentMemo } from '../../in-place-caches';
import type { ApiError } from './errors';

export type ResultInfo = components['schemas']['ResultInfo'];

/** An encoded envelope: text up to this many characters, bytes beyond. */
const TEXT_LIMIT = 16 * 1024;

interface Encoded {
  /** Small envelopes as text: Node then writes the header and the body in one system call. */
  body: string | Buffer;
  length: number;
}

function encodeText(text: string): Encoded {
  if (text.length <= TEXT_LIMIT) return { body: text, length: Buffer.byteLength(text) };
  const bytes = Buffer.from(text);
  return { body: bytes, length: bytes.length };
}

/** A result's JSON text. */
export type JsonEncoder = (value: unknown) => string;

/**
 * The success envelope, for results encoded by `encode` (the app gives the store's, which encodes
 * a recent frozen result, such as a committed ruleset version, once for the store and the answer alike).
 * With `validated` (response validation on), it goes through `res.json`, where the validator
 * checks it; otherwise it is written as it was encoded, a frozen result's encoding made once and
 * reused, straight to Node's response (no ETag or freshness check to make: the server sets neither
 * ETag nor Last-Modified). A HEAD request's response keeps the headers and drops the body.
 */
export function resultSender(encode: JsonEncoder) {
  // Encoded envelopes of recent frozen results (the store's committed ruleset versions never
  // change), for as many as the store keeps encodings of (see RecentMemo on why few).
  const encoded = new RecentMemo<Encoded>(16);
  const envelopeText = (result: unknown, resultInfo: ResultInfo | undefined): string => {
    const info = resultInfo ? `,"result_info":${JSON.stringify(resultInfo)}` : '';
    return `{"result":${encode(result)},"success":true,"errors":[],"messages":[]${info}}`;
  };
  return (res: Response, result: unknown, resultInfo: ResultInfo | undefined, validated: boolean): void => {
    if (validated) {
      res.status(200).json({ result, success: true, errors: [], messages: [], ...(resultInfo ? { result_info: resultInfo } : {}) });
      return;
    }
    const reusable = resultInfo === undefined && result !== null && typeof result === 'object' && Object.isFrozen(result);
    let envelope = reusable ? encoded.get(result) : undefined;
    if (envelope === undefined) {
      envelope = encodeText(envelopeText(result, resultInfo));
      if (reusable) encoded.set(result, envelope);
    }
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': envelope.length });
    res.end(envelope.body);
  };
}

/** The answer an ApiError carries: its status, its headers and its envelope. */
export function sendError(res: Response, error: ApiError): void {
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.status(error.status).json(error.envelope());
}

import type { Response } from 'express';
import { frozenJson, type ResultInfo } from '../../store';
import type { ErrorItem } from './errors';

export type { ResultInfo };

/** An encoded envelope: text up to this many characters, bytes beyond. */
const TEXT_LIMIT = 16 * 1024;

interface Encoded {
  /** Small envelopes as text: Node then writes the header and the body in one system call. */
  body: string | Buffer;
  length: number;
}

// Encoded envelopes of frozen results (the store's committed ruleset versions never change).
const encoded = new WeakMap<object, Encoded>();

function envelopeText(result: unknown, resultInfo: ResultInfo | undefined): string {
  const info = resultInfo ? `,"result_info":${JSON.stringify(resultInfo)}` : '';
  return `{"result":${frozenJson(result)},"success":true,"errors":[],"messages":[]${info}}`;
}

function encode(text: string): Encoded {
  if (text.length <= TEXT_LIMIT) return { body: text, length: Buffer.byteLength(text) };
  const bytes = Buffer.from(text);
  return { body: bytes, length: bytes.length };
}

/**
 * The success envelope. With `validated` (response validation on), it goes through `res.json`,
 * where the validator checks it; otherwise it is written as it was encoded, a frozen result's
 * encoding made once and reused, straight to Node's response (no ETag or freshness check to make:
 * the server sets neither ETag nor Last-Modified). A HEAD request's response keeps the headers and
 * drops the body.
 */
export function sendResult(res: Response, result: unknown, resultInfo: ResultInfo | undefined, validated: boolean): void {
  if (validated) {
    res.status(200).json({ result, success: true, errors: [], messages: [], ...(resultInfo ? { result_info: resultInfo } : {}) });
    return;
  }
  const reusable = resultInfo === undefined && result !== null && typeof result === 'object' && Object.isFrozen(result);
  let envelope = reusable ? encoded.get(result) : undefined;
  if (envelope === undefined) {
    envelope = encode(envelopeText(result, resultInfo));
    if (reusable) encoded.set(result, envelope);
  }
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': envelope.length });
  res.end(envelope.body);
}

export function sendErrors(res: Response, status: number, errors: ErrorItem[]): void {
  res.status(status).json({ result: null, success: false, errors, messages: [] });
}

/** The filter validation failure, exactly as the real service: one message, `messages` null. */
export function sendFilterFailure(res: Response, message: string): void {
  res.status(400).json({ result: null, success: false, errors: [{ message }], messages: null });
}

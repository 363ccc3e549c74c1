import type { Response } from 'express';
import { frozenJson, type ResultInfo } from '../../store';
import type { ErrorItem } from './errors';

export type { ResultInfo };

// Encoded envelopes of frozen results (the store's committed ruleset versions never change).
const encoded = new WeakMap<object, Buffer>();

function envelopeText(result: unknown, resultInfo: ResultInfo | undefined): string {
  const info = resultInfo ? `,"result_info":${JSON.stringify(resultInfo)}` : '';
  return `{"result":${frozenJson(result)},"success":true,"errors":[],"messages":[]${info}}`;
}

/**
 * The success envelope. With `validated` (response validation on), it goes through `res.json`,
 * where the validator checks it; otherwise it is written as bytes, those of a frozen result
 * encoded once and reused.
 */
export function sendResult(res: Response, result: unknown, resultInfo: ResultInfo | undefined, validated: boolean): void {
  if (validated) {
    res.status(200).json({ result, success: true, errors: [], messages: [], ...(resultInfo ? { result_info: resultInfo } : {}) });
    return;
  }
  const reusable = resultInfo === undefined && result !== null && typeof result === 'object' && Object.isFrozen(result);
  let body = reusable ? encoded.get(result) : undefined;
  if (body === undefined) {
    body = Buffer.from(envelopeText(result, resultInfo));
    if (reusable) encoded.set(result, body);
  }
  res.status(200).setHeader('Content-Type', 'application/json; charset=utf-8');
  res.send(body);
}

export function sendErrors(res: Response, status: number, errors: ErrorItem[]): void {
  res.status(status).json({ result: null, success: false, errors, messages: [] });
}

/** The filter validation failure, exactly as the real service: one message, `messages` null. */
export function sendFilterFailure(res: Response, message: string): void {
  res.status(400).json({ result: null, success: false, errors: [{ message }], messages: null });
}

import type { Response } from 'express';
import type { ResultInfo } from '../../store';
import type { ErrorItem } from './errors';

export type { ResultInfo };

// Serialized forms of frozen results (the store's committed ruleset versions never change).
const serialized = new WeakMap<object, string>();

function serialize(result: unknown): string {
  if (result === null || typeof result !== 'object' || !Object.isFrozen(result)) return JSON.stringify(result);
  let json = serialized.get(result);
  if (json === undefined) {
    json = JSON.stringify(result);
    serialized.set(result, json);
  }
  return json;
}

/**
 * The success envelope. With `validated` (response validation on), it goes through `res.json`,
 * where the validator checks it; otherwise it is written as text, reusing the serialized form of
 * a frozen result.
 */
export function sendResult(res: Response, result: unknown, resultInfo: ResultInfo | undefined, validated: boolean): void {
  if (validated) {
    res.status(200).json({ result, success: true, errors: [], messages: [], ...(resultInfo ? { result_info: resultInfo } : {}) });
    return;
  }
  const info = resultInfo ? `,"result_info":${JSON.stringify(resultInfo)}` : '';
  res.status(200).type('application/json').send(`{"result":${serialize(result)},"success":true,"errors":[],"messages":[]${info}}`);
}

export function sendErrors(res: Response, status: number, errors: ErrorItem[]): void {
  res.status(status).json({ result: null, success: false, errors, messages: [] });
}

/** The filter validation failure, exactly as the real service: one message, `messages` null. */
export function sendFilterFailure(res: Response, message: string): void {
  res.status(400).json({ result: null, success: false, errors: [{ message }], messages: null });
}

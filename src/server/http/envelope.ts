import type { Response } from 'express';
import type { ResultInfo } from '../../store';
import type { ErrorItem } from './errors';

export type { ResultInfo };

export function sendResult(res: Response, result: unknown, resultInfo?: ResultInfo): void {
  res.status(200).json({ result, success: true, errors: [], messages: [], ...(resultInfo ? { result_info: resultInfo } : {}) });
}

export function sendErrors(res: Response, status: number, errors: ErrorItem[]): void {
  res.status(status).json({ result: null, success: false, errors, messages: [] });
}

/** The filter validation failure, exactly as the real service: one message, `messages` null. */
export function sendFilterFailure(res: Response, message: string): void {
  res.status(400).json({ result: null, success: false, errors: [{ message }], messages: null });
}

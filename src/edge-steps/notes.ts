/**
 * What the steps learn of an exchange and hand to the later ones (the judgment to the log step,
 * the origin's answer to it too), kept beside the exchange rather than on it: the edge knows
 * nothing of judgments.
 */
import type { Exchange } from '../edge';
import type { EdgeRequest, Judgment, ZoneDeployment, ContextFields } from '../judge';
import type { ProxyOutcome } from '../origin';

export interface JudgedRequest {
  deployment: ZoneDeployment;
  request: EdgeRequest;
  context: ContextFields;
  judgment: Judgment;
}

export const judged = new WeakMap<Exchange, JudgedRequest>();
export const originAnswers = new WeakMap<Exchange, ProxyOutcome>();

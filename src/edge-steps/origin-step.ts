/**
 * The origin step: a zone's request that runs no worker goes to the origin the platform file
 * names for its hostname, with the platform's headers; without one, the platform answers that
 * the zone has no origin (530, 1016).
 */
import { type Exchange, answerError, cfRay } from '../edge';
import { type OriginTable, proxyToOrigin } from '../origin';
import { originAnswers } from './notes';

export function originStep(origins: OriginTable): (exchange: Exchange) => Promise<void> {
  return async (exchange) => {
    const origin = origins.find(exchange.hostname);
    if (origin === undefined) {
      exchange.outcome = { kind: 'platform', status: 530, code: 1016 };
      answerError(exchange, 'noOrigin');
      return;
    }
    const country = exchange.cf.country;
    const outcome = await proxyToOrigin({
      request: exchange.request,
      response: exchange.response,
      origin,
      cfRay: cfRay(exchange.rayId),
      clientIp: exchange.clientAddress,
      scheme: exchange.scheme,
      country: typeof country === 'string' ? country : undefined,
      host: exchange.hostname,
    });
    originAnswers.set(exchange, outcome);
  };
}

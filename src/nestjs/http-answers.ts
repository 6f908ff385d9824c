import {
  BadRequestException,
  ForbiddenException,
  HttpException,
  ServiceUnavailableException,
  UnauthorizedException,
} from '@nestjs/common';
import { TooManyRequestsError, type UnavailableError } from '../core/errors.js';
import type { SecurityResponse } from '../core/security.js';
import type { Answers } from './answers.js';

const UNAVAILABLE = 'The service is unavailable, try again later';
const TOO_MANY = 'Too many requests, try again later';

/**
 * The answers of a controller's handler: Nest's HTTP exceptions, for Nest's exception
 * filters to write, their headers (`WWW-Authenticate`, `Retry-After`, `Location`) set
 * on the platform's response (Express's `res`, Fastify's `reply`) first.
 *
 * @internal
 */
export function httpAnswers(response: unknown): Answers {
  return {
    refuse(answer: SecurityResponse) {
      for (const [name, value] of Object.entries(answer.headers)) {
        // Nest's exception filter writes its own body, with its own type and length.
        if (name !== 'content-type' && name !== 'content-length') setHeader(response, name, value);
      }
      if (answer.cookies !== undefined && answer.cookies.length > 0) {
        setHeader(response, 'set-cookie', [...answer.cookies]);
      }
      switch (answer.status) {
        case 400:
          return new BadRequestException();
        case 401:
          return new UnauthorizedException('Authentication is required');
        case 403:
          return new ForbiddenException('Access is denied');
        case 429:
          return new HttpException(TOO_MANY, 429);
        case 503:
          return new ServiceUnavailableException(UNAVAILABLE);
        default:
          return new HttpException(
            answer.status >= 300 && answer.status < 400 ? 'Redirect' : 'Error',
            answer.status,
          );
      }
    },
    unauthenticated(message, challenge) {
      if (challenge !== undefined) setHeader(response, 'www-authenticate', challenge);
      return new UnauthorizedException(message);
    },
    forbidden: (message) => new ForbiddenException(message),
    unavailable(error: UnavailableError) {
      setHeader(response, 'retry-after', String(error.retryAfter));
      return error instanceof TooManyRequestsError
        ? new HttpException(TOO_MANY, 429)
        : new ServiceUnavailableException(UNAVAILABLE);
    },
  };
}

/** Sets a header on Express's `res` or Fastify's `reply`. */
function setHeader(response: unknown, name: string, value: string | string[]): void {
  if (typeof response !== 'object' || response === null) return;
  const target = response as {
    header?: (name: string, value: unknown) => unknown;
    setHeader?: (name: string, value: unknown) => unknown;
    raw?: unknown;
  };
  if (typeof target.raw === 'object' && typeof target.header === 'function') {
    target.header(name, value);
  } else if (typeof target.setHeader === 'function') target.setHeader(name, value);
}

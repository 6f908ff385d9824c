import { ConfigurationError } from '../core/errors.js';
import { optionPath, requireHeaderName, requireHeaderValue } from './option-checks.js';

/**
 * Headers refused in `additionalHeaders`: `cache-control` (it would hide the
 * handler's absence of one and so switch off `no-store` for authenticated
 * responses), cookies, and the headers that frame a message.
 */
const REFUSED = [
  'cache-control',
  'set-cookie',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'host',
  'proxy-connection',
];

/**
 * Validates the `additionalHeaders` option: valid names, safe values, no header
 * that another option manages (`reserved`) or that is in {@link REFUSED}.
 *
 * @internal
 */
export function additionalHeaders(
  value: unknown,
  reserved: readonly string[],
): (readonly [string, string])[] {
  if (value === undefined) return [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigurationError(
      'additionalHeaders',
      'must be an object of header names to values',
    );
  }
  const entries: (readonly [string, string])[] = [];
  for (const [rawName, rawValue] of Object.entries(value as Readonly<Record<string, unknown>>)) {
    const option = optionPath('additionalHeaders', rawName);
    const name = requireHeaderName(option, rawName);
    if (reserved.includes(name)) {
      throw new ConfigurationError(option, 'is managed by its own option; set it there');
    }
    if (REFUSED.includes(name)) {
      throw new ConfigurationError(option, 'cannot be set on every response');
    }
    if (entries.some(([other]) => other === name)) {
      throw new ConfigurationError(option, 'is given twice (header names are case-insensitive)');
    }
    entries.push(Object.freeze([name, requireHeaderValue(option, rawValue)] as const));
  }
  return entries;
}

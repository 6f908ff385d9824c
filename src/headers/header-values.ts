import { ConfigurationError } from '../core/errors.js';
import type { SecurityHeadersOptions } from './options.js';
import { optionalBoolean, requireOneOf, requireOptions } from './option-checks.js';

/**
 * One header other than the CSP: the option that controls it, whether it is on by
 * default, and how its options object (or `undefined` for the defaults) becomes a value.
 *
 * @internal
 */
export interface HeaderSpec {
  readonly option: keyof SecurityHeadersOptions;
  readonly name: string;
  readonly onByDefault: boolean;
  readonly build: (options: unknown) => string;
}

const ONE_YEAR = 31_536_000;

function policy(option: string, allowed: readonly string[]): (options: unknown) => string {
  const [fallback = ''] = allowed;
  return (options) => {
    if (options === undefined) return fallback;
    const { policy: value = fallback } = requireOptions(option, options, ['policy']);
    return requireOneOf(`${option}.policy`, value, allowed);
  };
}

function fixed(option: string, value: string): (options: unknown) => string {
  return (options) => {
    if (options === undefined) return value;
    throw new ConfigurationError(option, 'takes no options; set it to true or false');
  };
}

const REFERRER_TOKENS = [
  'no-referrer',
  'no-referrer-when-downgrade',
  'same-origin',
  'origin',
  'strict-origin',
  'origin-when-cross-origin',
  'strict-origin-when-cross-origin',
  'unsafe-url',
];

function referrerPolicy(options: unknown): string {
  if (options === undefined) return 'no-referrer';
  const option = 'referrerPolicy.policy';
  const { policy: value = 'no-referrer' } = requireOptions('referrerPolicy', options, ['policy']);
  const tokens: unknown[] = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
  if (tokens.length === 0) {
    throw new ConfigurationError(option, 'must be a policy token or a non-empty array of them');
  }
  const seen = new Set<string>();
  for (const token of tokens) {
    const checked = requireOneOf(option, token, REFERRER_TOKENS);
    if (seen.has(checked)) throw new ConfigurationError(option, `lists ${checked} twice`);
    seen.add(checked);
  }
  return [...seen].join(',');
}

function strictTransportSecurity(options: unknown): string {
  if (options === undefined) return `max-age=${ONE_YEAR}; includeSubDomains`;
  const option = 'strictTransportSecurity';
  const record = requireOptions(option, options, ['maxAge', 'includeSubDomains', 'preload']);
  const maxAge = record.maxAge ?? ONE_YEAR;
  if (typeof maxAge !== 'number' || !Number.isSafeInteger(maxAge) || maxAge < 0) {
    throw new ConfigurationError(
      `${option}.maxAge`,
      'must be a whole number of seconds, 0 or more',
    );
  }
  const subDomains = optionalBoolean(`${option}.includeSubDomains`, record.includeSubDomains, true);
  const preload = optionalBoolean(`${option}.preload`, record.preload, false);
  if (preload && (maxAge < ONE_YEAR || !subDomains)) {
    throw new ConfigurationError(
      `${option}.preload`,
      `needs maxAge of at least ${ONE_YEAR} (one year) and includeSubDomains (the preload list's rules)`,
    );
  }
  return `max-age=${maxAge}${subDomains ? '; includeSubDomains' : ''}${preload ? '; preload' : ''}`;
}

function xDnsPrefetchControl(options: unknown): string {
  if (options === undefined) return 'off';
  const { allow } = requireOptions('xDnsPrefetchControl', options, ['allow']);
  return optionalBoolean('xDnsPrefetchControl.allow', allow, false) ? 'on' : 'off';
}

function xFrameOptions(options: unknown): string {
  if (options === undefined) return 'SAMEORIGIN';
  const option = 'xFrameOptions.action';
  const { action = 'sameorigin' } = requireOptions('xFrameOptions', options, ['action']);
  const normalized = typeof action === 'string' ? action.toLowerCase() : action;
  if (normalized === 'allow-from') {
    throw new ConfigurationError(
      option,
      'ALLOW-FROM is obsolete and ignored by browsers; use the CSP frame-ancestors directive',
    );
  }
  const checked = requireOneOf(option, normalized === 'same-origin' ? 'sameorigin' : normalized, [
    'deny',
    'sameorigin',
  ]);
  return checked.toUpperCase();
}

function xPermittedCrossDomainPolicies(options: unknown): string {
  if (options === undefined) return 'none';
  const option = 'xPermittedCrossDomainPolicies';
  const { permittedPolicies = 'none' } = requireOptions(option, options, ['permittedPolicies']);
  return requireOneOf(`${option}.permittedPolicies`, permittedPolicies, [
    'none',
    'master-only',
    'by-content-type',
    'all',
  ]);
}

/** The headers after the CSP, in helmet 8's order. @internal */
export const HEADER_SPECS: readonly HeaderSpec[] = [
  {
    option: 'crossOriginEmbedderPolicy',
    name: 'cross-origin-embedder-policy',
    onByDefault: false,
    build: policy('crossOriginEmbedderPolicy', ['require-corp', 'credentialless', 'unsafe-none']),
  },
  {
    option: 'crossOriginOpenerPolicy',
    name: 'cross-origin-opener-policy',
    onByDefault: true,
    build: policy('crossOriginOpenerPolicy', [
      'same-origin',
      'same-origin-allow-popups',
      'noopener-allow-popups',
      'unsafe-none',
    ]),
  },
  {
    option: 'crossOriginResourcePolicy',
    name: 'cross-origin-resource-policy',
    onByDefault: true,
    build: policy('crossOriginResourcePolicy', ['same-origin', 'same-site', 'cross-origin']),
  },
  {
    option: 'originAgentCluster',
    name: 'origin-agent-cluster',
    onByDefault: true,
    build: fixed('originAgentCluster', '?1'),
  },
  { option: 'referrerPolicy', name: 'referrer-policy', onByDefault: true, build: referrerPolicy },
  {
    option: 'strictTransportSecurity',
    name: 'strict-transport-security',
    onByDefault: true,
    build: strictTransportSecurity,
  },
  {
    option: 'xContentTypeOptions',
    name: 'x-content-type-options',
    onByDefault: true,
    build: fixed('xContentTypeOptions', 'nosniff'),
  },
  {
    option: 'xDnsPrefetchControl',
    name: 'x-dns-prefetch-control',
    onByDefault: true,
    build: xDnsPrefetchControl,
  },
  {
    option: 'xDownloadOptions',
    name: 'x-download-options',
    onByDefault: true,
    build: fixed('xDownloadOptions', 'noopen'),
  },
  { option: 'xFrameOptions', name: 'x-frame-options', onByDefault: true, build: xFrameOptions },
  {
    option: 'xPermittedCrossDomainPolicies',
    name: 'x-permitted-cross-domain-policies',
    onByDefault: true,
    build: xPermittedCrossDomainPolicies,
  },
  {
    option: 'xXssProtection',
    name: 'x-xss-protection',
    onByDefault: true,
    build: fixed('xXssProtection', '0'),
  },
];

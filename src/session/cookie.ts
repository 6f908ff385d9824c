import type { SessionSettings } from './config.js';

/**
 * The `Set-Cookie` value of a session: `HttpOnly`, `Secure` (unless insecure
 * development), `SameSite`, `Path=/`, `Max-Age` (the session's remaining lifetime, or
 * 0 to delete) and `Domain` only when dangerously set. The value is an iron seal
 * (URL-safe characters only), so it needs no encoding.
 *
 * @internal
 */
export function sessionCookie(
  settings: SessionSettings,
  value: string,
  maxAgeSeconds: number,
): string {
  const parts = [
    `${settings.cookieName}=${value}`,
    'Path=/',
    `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`,
    'HttpOnly',
    `SameSite=${settings.sameSite}`,
  ];
  if (settings.secure) parts.push('Secure');
  if (settings.domain !== undefined) parts.push(`Domain=${settings.domain}`);
  if (maxAgeSeconds <= 0) parts.push('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
  return parts.join('; ');
}

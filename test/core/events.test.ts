import { describe, expect, it, vi } from 'vitest';
import { SecurityEvents, type SecurityEvent } from '../../src/index.js';

const denied: SecurityEvent = {
  type: 'access-denied',
  username: 'alice',
  rule: 'r',
  request: { method: 'GET', path: '/admin', clientAddress: undefined },
};

describe('SecurityEvents', () => {
  it('delivers typed events to listeners of the type and to wildcard listeners', () => {
    const events = new SecurityEvents();
    const typed = vi.fn();
    const all = vi.fn();
    const other = vi.fn();
    events.on('access-denied', typed);
    events.on('*', all);
    events.on('request-rejected', other);
    events.publish(denied);
    expect(typed).toHaveBeenCalledWith(denied);
    expect(all).toHaveBeenCalledWith(denied);
    expect(other).not.toHaveBeenCalled();
  });

  it('a throwing or rejecting listener breaks neither publish nor other listeners', async () => {
    const events = new SecurityEvents();
    const warnings: string[] = [];
    const onWarning = (warning: Error & { code?: string }) => {
      warnings.push(warning.code ?? '');
    };
    process.on('warning', onWarning);
    try {
      const after = vi.fn();
      events.on('access-denied', () => {
        throw new Error('listener bug');
      });
      events.on('access-denied', () => Promise.reject(new Error('async bug')));
      events.on('access-denied', after);
      expect(() => {
        events.publish(denied);
      }).not.toThrow();
      expect(after).toHaveBeenCalledOnce();
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(warnings.filter((c) => c === 'PORTCULLIS_LISTENER_ERROR')).toHaveLength(2);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('unsubscribes and reports whether anyone listens', () => {
    const events = new SecurityEvents();
    expect(events.hasListeners).toBe(false);
    const listener = vi.fn();
    const off = events.on('access-denied', listener);
    expect(events.hasListeners).toBe(true);
    off();
    off();
    expect(events.hasListeners).toBe(false);
    events.publish(denied);
    expect(listener).not.toHaveBeenCalled();
  });
});

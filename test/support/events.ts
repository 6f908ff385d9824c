import { SecurityEvents, type SecurityEvent } from '../../src/index.js';

/** A publisher recording every event. */
export function recordEvents(): { events: SecurityEvents; received: SecurityEvent[] } {
  const events = new SecurityEvents();
  const received: SecurityEvent[] = [];
  events.on('*', (event) => {
    received.push(event);
  });
  return { events, received };
}

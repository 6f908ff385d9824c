import { describe, expect, it } from 'vitest';
import { createNonce } from '../../src/headers/nonce.js';

describe('createNonce', () => {
  it('gives 16 bytes in base64, all distinct across several pool refills', () => {
    const nonces = Array.from({ length: 1000 }, () => createNonce());
    expect(new Set(nonces).size).toBe(nonces.length);
    for (const nonce of nonces) {
      expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/u);
      expect(Buffer.from(nonce, 'base64')).toHaveLength(16);
    }
  });

  it('draws bytes that look random (every byte value appears, no zeroed pool)', () => {
    const bytes = Buffer.concat(
      Array.from({ length: 512 }, () => Buffer.from(createNonce(), 'base64')),
    );
    expect(new Set(bytes).size).toBe(256);
    const zeros = bytes.filter((b) => b === 0).length;
    expect(zeros).toBeLessThan(bytes.length / 64);
  });
});

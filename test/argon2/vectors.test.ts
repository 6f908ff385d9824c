import { readFileSync } from 'node:fs';
import { argon2id, hash } from 'argon2';
import { describe, expect, it } from 'vitest';
import { Argon2PasswordEncoder } from '../../src/argon2/index.js';

interface Filled {
  byte: number;
  length: number;
}
interface Vectors {
  rfc9106: {
    version: number;
    memoryCost: number;
    timeCost: number;
    parallelism: number;
    password: Filled;
    salt: Filled;
    secret: Filled;
    associatedData: Filled;
    tag: string;
  };
  reference: { vectors: { password: string; tag: string; encoded: string }[] };
}

const vectors = JSON.parse(
  readFileSync(new URL('./vectors.json', import.meta.url), 'utf8'),
) as Vectors;
const fill = ({ byte, length }: Filled) => Buffer.alloc(length, byte);

describe('Argon2id test vectors', () => {
  // Argon2PasswordEncoder takes no secret and no associated data, so the RFC 9106
  // vector (which needs both) runs through the lowest layer that has them: the
  // `argon2` package's raw hash, the exact call Argon2PasswordEncoder makes.
  it('computes the RFC 9106 §5.3 Argon2id tag through the argon2 package', async () => {
    const v = vectors.rfc9106;
    const tag = await hash(fill(v.password), {
      raw: true,
      type: argon2id,
      version: v.version,
      memoryCost: v.memoryCost,
      timeCost: v.timeCost,
      parallelism: v.parallelism,
      hashLength: v.tag.length / 2,
      salt: fill(v.salt),
      secret: fill(v.secret),
      associatedData: fill(v.associatedData),
    });
    expect(tag.toString('hex')).toBe(v.tag);
  });

  // Vectors without secret and AD, from the reference implementation's test
  // suite, verified through Argon2PasswordEncoder.matches with default settings.
  const encoder = new Argon2PasswordEncoder();
  it.each(vectors.reference.vectors)('verifies the reference vector $encoded', async (v) => {
    const b64 = v.encoded.split('$').at(-1);
    expect(Buffer.from(b64!, 'base64').toString('hex')).toBe(v.tag);
    expect(await encoder.matches(v.password, v.encoded)).toBe(true);
    expect(await encoder.matches(`${v.password}x`, v.encoded)).toBe(false);
    expect(encoder.upgradeEncoding(v.encoded)).toBe(true);
  });

  it('tells the reference vectors of two passwords apart', async () => {
    const different = vectors.reference.vectors.find((v) => v.password === 'differentpassword')!;
    expect(await encoder.matches('password', different.encoded)).toBe(false);
  });
});

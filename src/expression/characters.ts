/**
 * Characters that must never appear raw in printed expressions, messages or
 * excerpts: C0 and C1 controls, DEL, line and paragraph separators, bidirectional
 * formatting controls (Trojan Source), the byte-order mark and lone surrogates.
 *
 * @internal
 */
export const INVISIBLE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff\ud800-\udfff]/gu;

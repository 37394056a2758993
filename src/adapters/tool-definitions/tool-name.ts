import { TOOL_NAME_PATTERN } from '../../contract/tool-spec.js';
import { AdapterError } from '../adapter-error.js';

/** What OpenAI, Anthropic and Gemini all accept as a function name (each adds its own length limit). */
export const PROVIDER_NAME_PATTERN = /^[a-zA-Z0-9_-]+$/;

/**
 * Reversible mapping of contract tool names (`[a-zA-Z][a-zA-Z0-9_.-]*`) to provider names (`[a-zA-Z0-9_-]`):
 * - a lone `.` becomes `__` and a lone `_` stays `_` (so `orders.get` → `orders__get`, `get_order` unchanged);
 * - `-` becomes `-h`;
 * - any other run of dots and underscores becomes `-` + one letter per character (`d` dot, `u` underscore) + `-`
 *   (`a._b` → `a-du-b`, `a__b` → `a-uu-b`).
 * Underscore runs in the output are therefore exactly one or two long and escapes use only `-dhu`, which makes the
 * mapping decodable; {@link fromProviderToolName} also re-encodes, so each provider name has at most one preimage.
 */
export function toProviderToolName(name: string, maxLength: number): string {
  const encoded = name.replace(/[._]+|-/g, (run) => {
    if (run === '-') return '-h';
    if (run === '_') return '_';
    if (run === '.') return '__';
    return `-${[...run].map((char) => (char === '.' ? 'd' : 'u')).join('')}-`;
  });
  if (!PROVIDER_NAME_PATTERN.test(encoded) || encoded.length > maxLength) {
    throw new AdapterError(
      'TOOL_NAME_UNMAPPABLE',
      `tool name '${name.slice(0, 140)}' maps to '${encoded.slice(0, 140)}', over ${maxLength} characters or outside [a-zA-Z0-9_-]`,
    );
  }
  return encoded;
}

/** The contract tool name behind a provider name, or `null` when no valid contract name maps to it. */
export function fromProviderToolName(wire: string): string | null {
  if (!PROVIDER_NAME_PATTERN.test(wire)) return null;
  const decoded = wire.replace(/-h|-([du]+)-|_+|-/g, (token, run: string | undefined) => {
    if (token === '-h') return '-';
    if (run !== undefined) return [...run].map((char) => (char === 'd' ? '.' : '_')).join('');
    if (token === '_') return '_';
    if (token === '__') return '.';
    return '\u0000';
  });
  if (decoded.includes('\u0000') || !TOOL_NAME_PATTERN.test(decoded)) return null;
  try {
    return toProviderToolName(decoded, Number.MAX_SAFE_INTEGER) === wire ? decoded : null;
  } catch {
    return null;
  }
}

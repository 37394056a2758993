import { utf8ToBytes } from '@noble/hashes/utils.js';
import { z } from 'zod';
import { fromBase64Url, toBase64Url } from './base64url.js';
import { canonicalJson } from './canonical-json.js';
import type { Principal } from './tool-handler.js';
import { keyedDigest, sameBytes } from './keyed-digest.js';

/** Where a sealed cursor resumes a listing. */
export interface CursorPosition {
  /** The upstream cursor of the page to fetch; `null` for the first page. */
  readonly cursor: string | null;
  /** Items at the start of that page that were already shown (the executor had cut the page to its budget). */
  readonly skip: number;
  /** Items of the whole listing before the first one the next call shows (for `completeness.range`). */
  readonly position: number;
}

/** What a cursor is sealed for: only this caller, calling this tool with these other arguments, may use it. */
export interface CursorBinding {
  readonly principal: Principal;
  readonly tool: string;
  /** The call's arguments without the cursor argument. */
  readonly arguments: unknown;
}

/** Why a presented cursor was refused: not a sealed cursor, sealed for another call or caller (or forged), or expired. */
export type CursorRefusal = 'malformed' | 'mismatch' | 'expired';

const PREFIX = 'ttc1';
/** Longer tokens are refused unread: no cursor a tool can legitimately produce comes near it. */
const MAX_TOKEN_CHARS = 16 * 1024;

const payloadSchema = z.strictObject({
  c: z.string().nullable(),
  s: z.number().int().nonnegative(),
  p: z.number().int().nonnegative(),
  e: z.number().int(),
});
type Payload = z.infer<typeof payloadSchema>;

/**
 * Seals a continuation for one caller: `ttc1.<payload>.<mac>`, where the MAC is HMAC-SHA256 (keyed by the host's
 * cursor key) over the principal, the tool, the other arguments, the position and the expiry. The payload is
 * readable (base64url JSON), not secret: what makes the cursor safe to hand to a model is that any change to it, or
 * its use by another principal, for another tool or other arguments, or after `expiresAt`, is detected.
 * Throws when `binding.arguments` has no canonical JSON form (the caller then offers no continuation).
 */
export function sealCursor(key: Uint8Array, binding: CursorBinding, at: CursorPosition, expiresAt: number): string {
  const payload: Payload = { c: at.cursor, s: at.skip, p: at.position, e: expiresAt };
  const mac = keyedDigest(key, macMessage(binding, payload));
  return `${PREFIX}.${toBase64Url(utf8ToBytes(canonicalJson(payload)))}.${toBase64Url(mac)}`;
}

/** Opens a cursor sealed by {@link sealCursor} for exactly this binding, if it has not expired at `now`. */
export function unsealCursor(
  key: Uint8Array,
  binding: CursorBinding,
  token: string,
  now: number,
): { ok: true; at: CursorPosition } | { ok: false; reason: CursorRefusal } {
  const payload = readToken(token);
  if (payload === null) return { ok: false, reason: 'malformed' };
  let expected: Uint8Array;
  try {
    expected = keyedDigest(key, macMessage(binding, payload.fields));
  } catch {
    // Arguments without a canonical form were never sealed.
    return { ok: false, reason: 'mismatch' };
  }
  if (!sameBytes(expected, payload.mac)) return { ok: false, reason: 'mismatch' };
  if (now >= payload.fields.e) return { ok: false, reason: 'expired' };
  return { ok: true, at: { cursor: payload.fields.c, skip: payload.fields.s, position: payload.fields.p } };
}

function macMessage(binding: CursorBinding, payload: Payload): unknown {
  const { tenant, subject } = binding.principal;
  return { domain: 'ttc.cursor.v1', tenant, subject, tool: binding.tool, arguments: binding.arguments, ...payload };
}

function readToken(token: string): { fields: Payload; mac: Uint8Array } | null {
  if (token.length > MAX_TOKEN_CHARS) return null;
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== PREFIX) return null;
  const body = fromBase64Url(parts[1]!);
  const mac = fromBase64Url(parts[2]!);
  if (body === null || mac === null) return null;
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    return null;
  }
  const fields = payloadSchema.safeParse(json);
  return fields.success ? { fields: fields.data, mac } : null;
}

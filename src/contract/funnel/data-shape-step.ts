import { canonicalJson } from '../canonical-json.js';
import type { RawResponse, ToolOutput } from '../tool-handler.js';
import { withoutUndefinedMembers } from '../defined-members.js';
import { canonicalJsonOfInspected } from '../inspected-canonical-json.js';
import { inspectJson, type InspectedJson } from '../json-shape.js';
import type { Sha256Hex } from '../sha256.js';
import { utf8ByteLength } from '../truncation.js';
import { contractFailure } from './contract-failure.js';
import { overRawSizeGate } from './raw-size-gate.js';
import { envelopeOf, type CanonicalData, type FunnelState } from './funnel-state.js';
import { failLayer, passLayer, type StepResult } from './step.js';

/**
 * Protocol layer, part two: `data` is plain JSON no deeper than the budget allows, checked without recursion before
 * any recursive code (zod, canonical JSON, redaction) sees it. The same pass measures it for the raw size gate.
 * Then the raw response is digested for the audit.
 */
export function checkDataShape(state: FunnelState): StepResult {
  const envelope = envelopeOf(state);
  const { budget } = state.tool;
  const rule = `json-shape@1;maxDepth=${budget.maxDepth}`;
  const shape = inspectJson(envelope.data, budget.maxDepth);
  if (!shape.ok)
    return failLayer(state, 'protocol', rule, contractFailure('protocol', shape), `${shape.reason} at '${shape.path}'`);
  // A member set to `undefined` (`{ note: row.note ?? undefined }`) is absent in JSON: the schema, the model and the
  // audit see the data without it, as its digest does.
  const data =
    shape.members.undefinedValues > 0
      ? { envelope: { ...envelope, data: withoutUndefinedMembers(envelope.data) } }
      : {};
  return passLayer(state, 'protocol', rule, {
    ...rawResponseDigest(envelope, shape, state.sha256),
    overRawSize: overRawSizeGate(shape.size, budget),
    ...data,
  });
}

/** The handler's raw bytes when it kept them, else the canonical form of its data (which the artifact reuses). */
function rawResponseDigest(
  envelope: ToolOutput<unknown>,
  shape: InspectedJson,
  hash: Sha256Hex,
): Pick<FunnelState, 'rawResponse' | 'canonicalData'> {
  const raw = rawBodyDigest(envelope.rawResponse, hash);
  if (raw !== null) return { rawResponse: raw, canonicalData: null };
  const canonical = canonicalDataFrom(canonicalJsonOfInspected(envelope.data, shape), hash);
  return { rawResponse: { sha256: canonical.sha256, bytes: canonical.bytes }, canonicalData: canonical };
}

/** SHA-256 and size of raw upstream bytes, or `null` when `raw` is not a body a handler could have received. */
export function rawBodyDigest(raw: RawResponse | undefined, hash: Sha256Hex): FunnelState['rawResponse'] {
  if (!raw || (typeof raw.body !== 'string' && !(raw.body instanceof Uint8Array))) return null;
  const bytes = typeof raw.body === 'string' ? utf8ByteLength(raw.body) : raw.body.byteLength;
  return { sha256: hash(raw.body), bytes };
}

/** Canonical JSON of the handler's data, unredacted: the artifact body and (without raw bytes) the raw digest. */
export function canonicalDataOf(envelope: ToolOutput<unknown>, hash: Sha256Hex): CanonicalData {
  return canonicalDataFrom(canonicalJson(envelope.data), hash);
}

function canonicalDataFrom(body: string, hash: Sha256Hex): CanonicalData {
  return { body, sha256: hash(body), bytes: utf8ByteLength(body) };
}

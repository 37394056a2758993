import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { firstMonthKept } from '../../src/cli/audit-retention.js';
import {
  anchorDigest,
  GENESIS_ANCHOR_SHA256,
  signAnchorDigest,
  type AnchorBody,
  type AuditAnchor,
} from '../../src/store/audit-trail/anchor.js';
import { auditLeaf, microsecondIso, type AuditLeafFields } from '../../src/store/audit-trail/audit-leaf.js';
import { chainFindings, publishedFindings, signatureFindings } from '../../src/store/audit-trail/chain-check.js';
import { leafHash, merkleRoot } from '../../src/store/audit-trail/merkle.js';
import { segmentFindings } from '../../src/store/audit-trail/segment-check.js';

// Certificate Transparency's reference test data for RFC 6962 trees (certificate-transparency, merkle_tree_test):
// eight leaf inputs, and the root of the tree over the first n of them.
const CT_LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'];
const CT_ROOTS = [
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];

describe('the Merkle tree of a segment', () => {
  it("is RFC 6962's: the roots of Certificate Transparency's reference vectors, for 0 to 8 leaves", () => {
    const leaves = CT_LEAVES.map((hex) => leafHash(Buffer.from(hex, 'hex')));
    for (let size = 0; size <= leaves.length; size++)
      assert.equal(merkleRoot(leaves.slice(0, size)), CT_ROOTS[size], `${size} leaves`);
  });
});

function row(n: number, overrides: Partial<AuditLeafFields> = {}): AuditLeafFields {
  return {
    audit_id: `aud_${n}`,
    audit_sha256: String(n).padStart(64, '0'),
    xact: String(100 + n),
    seq: String(n),
    recorded_at: '2026-12-05T07:30:32.088410Z',
    workflow_id: 'wf',
    ...overrides,
  };
}

function sealed(rows: readonly AuditLeafFields[], anchorNo = 1): { anchor: AuditAnchor; leaves: Buffer[] } {
  const leaves = rows.map(auditLeaf);
  const body: AnchorBody = {
    anchor_no: anchorNo,
    period: '2026-12-01',
    xact_from: '0',
    xact_to: '200',
    row_count: rows.length,
    merkle_root: merkleRoot(leaves),
    prev_anchor_sha256: GENESIS_ANCHOR_SHA256,
    sealed_at: '2026-12-05T08:00:00.000000Z',
    sealed_by: 'ttc_app',
  };
  return { anchor: { ...body, anchor_sha256: anchorDigest(body), key_id: null, signature: null }, leaves };
}

describe('a segment checked against its sealed leaves', () => {
  const rows = [1, 2, 3, 4, 5].map((n) => row(n));
  const { anchor, leaves } = sealed(rows);
  const check = (now: readonly AuditLeafFields[], complete = true) =>
    segmentFindings({ anchor, leaves, rows: now, complete });

  it('holds as sealed, and names nothing', () => {
    assert.deepEqual(check(rows), []);
  });

  it('names a row changed in place (a field of its leaf edited): changed, not also a missing leaf', () => {
    const now = rows.map((r) => (r.audit_id === 'aud_3' ? { ...r, audit_sha256: 'f'.repeat(64) } : r));
    assert.deepEqual(check(now), [
      { kind: 'row_not_as_sealed', anchor_no: 1, audit_id: 'aud_3', seq: '3', how: 'changed' },
    ]);
  });

  it('names a deleted row by its place between its neighbours', () => {
    assert.deepEqual(check(rows.filter((r) => r.audit_id !== 'aud_3')), [
      { kind: 'row_missing', anchor_no: 1, position: 2, after: 'aud_2', before: 'aud_4' },
    ]);
    assert.deepEqual(check(rows.slice(1)), [
      { kind: 'row_missing', anchor_no: 1, position: 0, after: null, before: 'aud_2' },
    ]);
  });

  it('names an added row', () => {
    assert.deepEqual(check([...rows.slice(0, 2), row(9), ...rows.slice(2)]), [
      { kind: 'row_not_as_sealed', anchor_no: 1, audit_id: 'aud_9', seq: '9', how: 'added' },
    ]);
  });

  it('names rows in another order, and in a partial view only what is not sealed', () => {
    assert.deepEqual(check([rows[1]!, rows[0]!, ...rows.slice(2)]), [{ kind: 'rows_reordered', anchor_no: 1 }]);
    assert.deepEqual(check([rows[3]!], false), [], "one workflow's rows: the others are not missing");
    assert.equal(check([{ ...rows[3]!, seq: '44' }], false)[0]?.kind, 'row_not_as_sealed');
  });

  it('refuses leaves that do not make the root', () => {
    assert.deepEqual(segmentFindings({ anchor, leaves: leaves.slice(1), rows, complete: true }), [
      { kind: 'segment_leaves', anchor_no: 1 },
    ]);
  });
});

/** A chain of anchors as a sealer writes it (two ranges, the second over two months). */
function chain(sealedBy = 'ttc_app'): AuditAnchor[] {
  const bodies: Omit<AnchorBody, 'prev_anchor_sha256' | 'anchor_no'>[] = [
    {
      period: '2026-11-01',
      xact_from: '0',
      xact_to: '500',
      row_count: 2,
      merkle_root: 'a'.repeat(64),
      sealed_at: '2026-12-01T00:00:00.000000Z',
      sealed_by: 'ttc_app',
    },
    {
      period: '2026-11-01',
      xact_from: '500',
      xact_to: '900',
      row_count: 1,
      merkle_root: 'b'.repeat(64),
      sealed_at: '2026-12-02T00:00:00.000000Z',
      sealed_by: 'ttc_app',
    },
    {
      period: '2026-12-01',
      xact_from: '500',
      xact_to: '900',
      row_count: 3,
      merkle_root: 'c'.repeat(64),
      sealed_at: '2026-12-02T00:00:00.000000Z',
      sealed_by: 'ttc_app',
    },
  ];
  const anchors: AuditAnchor[] = [];
  for (const [index, body] of bodies.entries()) {
    const full: AnchorBody = {
      ...body,
      sealed_by: sealedBy,
      anchor_no: index + 1,
      prev_anchor_sha256: anchors.at(-1)?.anchor_sha256 ?? GENESIS_ANCHOR_SHA256,
    };
    anchors.push({ ...full, anchor_sha256: anchorDigest(full), key_id: null, signature: null });
  }
  return anchors;
}

describe('the chain of anchors', () => {
  it('holds as sealed', () => {
    assert.deepEqual(chainFindings(chain()), []);
  });

  it('breaks where an anchor is edited, removed, or its range does not continue the previous one', () => {
    const edited = chain().map((anchor) => (anchor.anchor_no === 2 ? { ...anchor, row_count: 7 } : anchor));
    assert.deepEqual(chainFindings(edited), [{ kind: 'anchor_digest', anchor_no: 2 }]);
    const removed = chain().filter((anchor) => anchor.anchor_no !== 2);
    assert.deepEqual(
      chainFindings(removed).map((finding) => finding.kind),
      ['anchor_sequence', 'chain_broken'],
    );
    const gap = chain();
    const body: AnchorBody = { ...gap[1]!, xact_from: '600' };
    gap[1] = { ...gap[1]!, xact_from: '600', anchor_sha256: anchorDigest(body) };
    assert.ok(chainFindings(gap).some((finding) => finding.kind === 'anchor_sequence' && finding.problem === 'range'));
  });

  it("is checked against the anchors published outside the database, and against the sealer's signatures", () => {
    const published = chain();
    // An owner who re-seals writes a chain that holds on its own, with other digests.
    const resealed = chain('owner');
    assert.deepEqual(chainFindings(resealed), []);
    assert.deepEqual(publishedFindings(published, published), []);
    assert.deepEqual(
      publishedFindings(resealed, published).map((finding) => finding.kind),
      ['published_anchor', 'published_anchor', 'published_anchor'],
    );
    assert.deepEqual(
      publishedFindings(published.slice(0, 1), published).map((finding) => (finding as { problem: string }).problem),
      ['missing', 'missing'],
    );

    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const other = generateKeyPairSync('ed25519');
    const signed = chain().map((anchor) => ({
      ...anchor,
      key_id: 'k1',
      signature: signAnchorDigest(anchor.anchor_sha256, { keyId: 'k1', privateKey }),
    }));
    assert.deepEqual(signatureFindings(signed, new Map([['k1', publicKey]])), []);
    assert.deepEqual(
      signatureFindings(signed, new Map([['k1', other.publicKey]])).map(
        (finding) => (finding as { problem: string }).problem,
      ),
      ['bad_signature', 'bad_signature', 'bad_signature'],
    );
    assert.deepEqual(
      signatureFindings(chain().slice(0, 1), new Map([['k1', publicKey]])).map(
        (finding) => (finding as { problem: string }).problem,
      ),
      ['unsigned'],
    );
  });
});

describe('times and months', () => {
  it('writes a JavaScript time to the microsecond, as Postgres keeps it', () => {
    assert.equal(microsecondIso(new Date('2026-12-05T07:30:32.088Z')), '2026-12-05T07:30:32.088000Z');
  });

  it('retention keeps the month of now minus the age, and drops only the months before it', () => {
    const now = new Date('2026-12-05T07:30:00Z');
    assert.equal(firstMonthKept('400d', now), '2025-10-01');
    assert.equal(firstMonthKept('13m', now), '2025-11-01');
    assert.equal(firstMonthKept('2y', now), '2024-12-01');
    assert.equal(firstMonthKept('1w', now), '2026-11-01');
    assert.equal(
      firstMonthKept('1m', new Date('2026-03-31T12:00:00Z')),
      '2026-02-01',
      'a month back from the 31st is February, not March',
    );
  });
});

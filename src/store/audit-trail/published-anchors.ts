// Anchors published outside the database: one JSON line per anchor (`{"type":"anchor",...}`), appended by
// `tool-contract seal --publish <file>` and written by `retention` before it drops anything. The same lines as an
// export's anchor lines, without leaves, so either file can serve as the published anchors verify compares with.
import type { z } from 'zod';
import type { AuditAnchor } from './anchor.js';
import { publishedAnchorSchema } from './export-format.js';

/** The JSON line of a published anchor (with its newline). */
export function publishedAnchorLine(anchor: AuditAnchor): string {
  return `${JSON.stringify({ type: 'anchor', ...anchor })}\n`;
}

/** A file of published anchors is refused when a line is not one (its number, 1-based). */
export class PublishedAnchorsError extends Error {
  override readonly name = 'PublishedAnchorsError';
  readonly line: number;

  constructor(line: number) {
    super(`line ${line} is not a published anchor`);
    this.line = line;
  }
}

/**
 * The anchors of a published file (or an export: its anchor lines), in file order; other export lines are skipped.
 * A line that says it is an anchor but is not a well-formed one is refused ({@link PublishedAnchorsError}).
 */
export function parsePublishedAnchors(text: string): AuditAnchor[] {
  const anchors: AuditAnchor[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new PublishedAnchorsError(index + 1);
    }
    if (typeof value !== 'object' || value === null || (value as { type?: unknown }).type !== 'anchor') return;
    const parsed = publishedAnchorSchema.safeParse(value);
    if (!parsed.success) throw new PublishedAnchorsError(index + 1);
    anchors.push(anchorOfLine(parsed.data));
  });
  return anchors;
}

function anchorOfLine({
  type: _type,
  leaves: _leaves,
  complete: _complete,
  ...anchor
}: z.infer<typeof publishedAnchorSchema>): AuditAnchor {
  return anchor;
}

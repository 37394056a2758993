import { z } from 'zod';
import { ToolError, type AnyToolImplementation } from '../../src/index.js';
import { defineTool } from '../../testkit/define-tool.js';

/** The tenant whose records the record tools hold, and a record of another tenant among them. */
export const RECORDS_TENANT = 'tenant-acme';
export const FOREIGN_RECORD = {
  id: 'rec_foreign',
  tenant_id: 'tenant-other',
  title: 'Acquisition plan of tenant-other',
};

export const RECORD_TOOLS = {
  get: 'records.get',
  list: 'records.list',
  scan: 'records.scan',
  scanBrief: 'records.scan_brief',
  count: 'records.count',
  export: 'records.export',
  purge: 'records.purge',
} as const;

const record = z.strictObject({ id: z.string(), tenant_id: z.string(), title: z.string() });
type RecordRow = z.infer<typeof record>;

/** Twelve records of {@link RECORDS_TENANT}, in listing order. */
export const OWN_RECORDS: readonly RecordRow[] = Array.from({ length: 12 }, (_, i) => ({
  id: `rec_${String(i + 1).padStart(2, '0')}`,
  tenant_id: RECORDS_TENANT,
  title: `Record ${i + 1}`,
}));

/** Upstream pages of the cursor listing: 7 then 5 records, so the first page is over the 5-item budget. */
const UPSTREAM_PAGES = [OWN_RECORDS.slice(0, 7), OWN_RECORDS.slice(7)];

/** What the record tools' handlers saw, for assertions that something did (or did not) run. */
export interface RecordToolLog {
  readonly cursors: (string | null)[];
  handlerRuns: number;
}

/**
 * In-process tools over {@link OWN_RECORDS} (and one foreign record) for the permission tests: a tenant-scoped
 * lookup, an offset listing and two cursor listings (the second with cursors valid for 1 ms) of 5 items per result,
 * a count limited to two calls per workflow, an export only user-42 may run, and a destructive purge.
 */
export function recordTools(log: RecordToolLog): AnyToolImplementation[] {
  const listOutput = z.strictObject({ records: z.array(record) });
  const listing = {
    output: listOutput,
    effect: 'read' as const,
    source: { label: 'records-db', type: 'database' },
    budget: { itemsPointer: '/records', maxItems: 5 },
    scope: { tenantPointer: '/tenant_id' },
  };
  const scan = (name: string, ttlMs?: number) =>
    defineTool({
      ...listing,
      name,
      description: 'Scan the records, page by page.',
      input: z.strictObject({ cursor: z.string().optional() }),
      continuation: { kind: 'cursor', argument: 'cursor', ...(ttlMs === undefined ? {} : { ttlMs }) },
      handler: (args) => {
        log.handlerRuns += 1;
        log.cursors.push(args.cursor ?? null);
        const page = args.cursor === undefined ? 0 : Number(args.cursor.replace('upstream-page-', ''));
        const records = UPSTREAM_PAGES[page];
        if (records === undefined) throw new ToolError('INVALID_ARGUMENTS', { reason: 'unknown upstream cursor' });
        return Promise.resolve({
          data: { records: [...records] },
          next:
            page + 1 < UPSTREAM_PAGES.length ? { type: 'cursor' as const, value: `upstream-page-${page + 1}` } : null,
        });
      },
    });
  return [
    defineTool({
      name: RECORD_TOOLS.get,
      description: 'Look up one record by id.',
      input: z.strictObject({ id: z.string() }),
      output: record,
      effect: 'read',
      source: { label: 'records-db', type: 'database' },
      scope: { tenantPointer: '/tenant_id' },
      handler: (args) => {
        log.handlerRuns += 1;
        // The upstream does not filter by tenant: the contract's scope layer must.
        const found = [...OWN_RECORDS, FOREIGN_RECORD].find((r) => r.id === args.id);
        if (found === undefined) throw new ToolError('NOT_FOUND');
        return Promise.resolve({
          data: found,
          evidence: [{ kind: 'row', locator: `records/${found.id}`, supports: ['/title'] }],
        });
      },
    }),
    defineTool({
      ...listing,
      name: RECORD_TOOLS.list,
      description: 'List the records (5 per result; continue with the offset the result gives).',
      input: z.strictObject({ offset: z.number().int().nonnegative().optional() }),
      continuation: { kind: 'offset', argument: 'offset' },
      handler: (args) => {
        log.handlerRuns += 1;
        const offset = args.offset ?? 0;
        return Promise.resolve({
          data: { records: OWN_RECORDS.slice(offset) },
          availableItems: Math.max(0, OWN_RECORDS.length - offset),
        });
      },
    }),
    scan(RECORD_TOOLS.scan),
    scan(RECORD_TOOLS.scanBrief, 1),
    defineTool({
      name: RECORD_TOOLS.count,
      description: 'Count the records.',
      input: z.strictObject({}),
      output: z.strictObject({ count: z.number().int() }),
      effect: 'read',
      source: { label: 'records-db', type: 'database' },
      callLimit: 2,
      handler: () => {
        log.handlerRuns += 1;
        return Promise.resolve({ data: { count: OWN_RECORDS.length } });
      },
    }),
    defineTool({
      name: RECORD_TOOLS.export,
      description: 'Export every record (user-42 only).',
      input: z.strictObject({ format: z.enum(['csv', 'json']) }),
      output: z.strictObject({ exported: z.number().int() }),
      effect: 'read',
      source: { label: 'records-db', type: 'database' },
      authorize: (_args, principal) => principal.subject === 'user-42' || `${principal.subject} may not export records`,
      handler: () => {
        log.handlerRuns += 1;
        return Promise.resolve({ data: { exported: OWN_RECORDS.length } });
      },
    }),
    defineTool({
      name: RECORD_TOOLS.purge,
      description: 'Delete every record. Irreversible.',
      input: z.strictObject({}),
      output: z.strictObject({ purged: z.number().int() }),
      effect: 'destructive',
      source: { label: 'records-db', type: 'database' },
      handler: () => {
        log.handlerRuns += 1;
        return Promise.resolve({ data: { purged: 0 }, receipt: { externalId: 'purge-1' } });
      },
    }),
  ];
}

// A read tool that returns one text everywhere outside text can reach a call: as data, as untrusted text and as an
// evidence quote. The linear-time test and the redaction bench feed it adversarial megabytes.
import { z } from 'zod';
import { defineTool } from '../define-tool.js';

export function webPageTool(text: string) {
  return defineTool({
    name: 'web.fetch',
    description: 'Fetch a page.',
    input: z.strictObject({}),
    output: z.strictObject({ body: z.string() }),
    effect: 'read',
    source: { label: 'web', type: 'http_api' },
    handler: () =>
      Promise.resolve({
        data: { body: text },
        untrusted: [{ text, source: 'web' }],
        evidence: [{ kind: 'page', locator: 'https://example.com/', supports: ['/body'], quote: text }],
      }),
  });
}

/**
 * HTML built from text that may be hostile (tool output, untrusted content, arguments, workflow ids): every value
 * interpolated into {@link html} is escaped unless it is already {@link Html} made by this module, so a `<script>` in
 * a tool's answer shows as text. Markup exists only in the templates' literal parts.
 */

/** Markup this module built: the only thing a template inserts unescaped. */
export class Html {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  toString(): string {
    return this.text;
  }
}

/** What a template accepts: markup, text (escaped), numbers, nothing (`null`/`undefined`/`false`), or a list of those. */
export type HtmlPart = Html | string | number | boolean | null | undefined | readonly HtmlPart[];

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text as it may stand in an element or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

function render(part: HtmlPart): string {
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  if (part === null || part === undefined || part === false || part === true) return '';
  return escapeHtml(String(part));
}

/** A template whose interpolations are escaped (see the module comment). */
export function html(strings: TemplateStringsArray, ...parts: readonly HtmlPart[]): Html {
  let text = strings[0] ?? '';
  parts.forEach((part, i) => {
    text += render(part) + (strings[i + 1] ?? '');
  });
  return new Html(text);
}

/** Any JSON value shown as indented text inside a `<pre>` (escaped like any text). */
export function jsonBlock(value: unknown): Html {
  return html`<pre class="json">${JSON.stringify(value, null, 2) ?? 'undefined'}</pre>`;
}

// A minimal browser for the operator console: it keeps the session cookie, reads the CSRF token out of the page it
// got, and posts forms with the console's own Origin — what a person's browser does, over real HTTP.
import { rawRequest, type RawResponse } from './raw-http.js';

/** One browser session on a console. */
export class ConsoleBrowser {
  private cookie: string | undefined;
  private token: string | undefined;

  readonly url: string;
  private readonly extraHeaders: Readonly<Record<string, string>>;

  constructor(url: string, extraHeaders: Readonly<Record<string, string>> = {}) {
    this.url = url;
    this.extraHeaders = extraHeaders;
  }

  /** GETs a page; remembers the session cookie and the CSRF token its forms carry. */
  async get(path: string): Promise<RawResponse> {
    const response = await rawRequest(`${this.url}${path}`, { method: 'GET', headers: this.headers() });
    this.remember(response);
    const token = /name="csrf" value="([^"]+)"/.exec(response.body)?.[1];
    if (token !== undefined) this.token = token;
    return response;
  }

  /** POSTs a form as a console page would (Origin, cookie, CSRF token); `headers` override any of them. */
  async post(
    path: string,
    fields: Readonly<Record<string, string>>,
    headers: Readonly<Record<string, string>> = {},
  ): Promise<RawResponse> {
    const body = new URLSearchParams({
      ...(this.token === undefined ? {} : { csrf: this.token }),
      ...fields,
    }).toString();
    const response = await rawRequest(`${this.url}${path}`, {
      method: 'POST',
      headers: { ...this.headers(), origin: this.url, 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body,
    });
    this.remember(response);
    return response;
  }

  /** The CSRF token of the last page that had forms. */
  get csrfToken(): string | undefined {
    return this.token;
  }

  private headers(): Record<string, string> {
    return { ...this.extraHeaders, ...(this.cookie === undefined ? {} : { cookie: this.cookie }) };
  }

  private remember(response: RawResponse): void {
    const set = response.headers['set-cookie'];
    const first = Array.isArray(set) ? set[0] : set;
    if (first !== undefined) this.cookie = first.split(';')[0];
  }
}

import { request } from 'node:http';

/** A response as {@link rawRequest} reads it. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/**
 * One HTTP request with exactly the headers given, `Host` included — what a DNS-rebinding page or a reverse proxy
 * sends. `fetch` cannot do this: it always sends the URL's own host.
 */
export function rawRequest(
  url: string,
  options: { readonly method?: string; readonly headers?: Readonly<Record<string, string>>; readonly body?: string },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'POST', headers: options.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

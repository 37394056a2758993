import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createServer } from 'node:tls';

/** Files of a throwaway PKI: a CA, a server certificate for `localhost`, a client certificate the server requires. */
export interface TestPki {
  readonly caCert: string;
  readonly clientCert: string;
  readonly clientKey: string;
  readonly serverCert: string;
  readonly serverKey: string;
}

/** Issues the test PKI into `folder` with openssl (P-256 keys, valid one day). */
export function issueTestPki(folder: string): TestPki {
  const file = (name: string) => join(folder, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: folder, stdio: 'ignore' });
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...key,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '1',
    '-subj',
    '/CN=ttc-test-ca',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
  );
  for (const [name, extensions] of [
    ['server', 'subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\n'],
    ['client', 'extendedKeyUsage=clientAuth\n'],
  ] as const) {
    writeFileSync(file(`${name}.ext`), `basicConstraints=CA:FALSE\n${extensions}`);
    openssl('req', ...key, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=ttc-test-${name}`);
    openssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      '1',
      '-extfile',
      `${name}.ext`,
    );
  }
  return {
    caCert: file('ca.pem'),
    clientCert: file('client.pem'),
    clientKey: file('client.key'),
    serverCert: file('server.pem'),
    serverKey: file('server.key'),
  };
}

/** A TLS endpoint on 127.0.0.1 that requires a client certificate of the test CA and relays to a plaintext server. */
export interface TlsProxy {
  readonly address: string;
  close(): Promise<void>;
}

/** Terminates mutual TLS (HTTP/2 by ALPN, as gRPC negotiates it) in front of `target` (`host:port`). */
export async function startMutualTlsProxy(pki: TestPki, target: string): Promise<TlsProxy> {
  const [host = '127.0.0.1', port = ''] = target.split(':');
  const server = createServer(
    {
      key: readFileSync(pki.serverKey),
      cert: readFileSync(pki.serverCert),
      ca: readFileSync(pki.caCert),
      requestCert: true,
      rejectUnauthorized: true,
      ALPNProtocols: ['h2'],
    },
    (tlsSocket) => {
      const upstream = connect(Number(port), host);
      tlsSocket.pipe(upstream).pipe(tlsSocket);
      const end = () => {
        tlsSocket.destroy();
        upstream.destroy();
      };
      tlsSocket.on('error', end);
      upstream.on('error', end);
    },
  );
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: listening } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${listening}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
      }),
  };
}

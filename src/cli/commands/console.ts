import { parsePort } from '../cli-config.js';
import { optionalString, parseCommandArgs, usageError } from '../command-args.js';
import type { StackCommandSpec } from '../command.js';

/** How `console` serves, and whose decisions it signs. */
export interface ConsoleInput {
  readonly json: boolean;
  readonly port: number;
  /** The operator's name (else TTC_OPERATOR); ignored with `trustProxyHeader`. */
  readonly operator?: string;
  /** Take the operator of each request from this header, which the team's identity-aware proxy sets. */
  readonly trustProxyHeader?: string;
  readonly allowedHosts: readonly string[];
  /** The Temporal UI's address, for links to a workflow. */
  readonly temporalUi?: string;
}

/** Where the console listens by default: next to the dev server's UI (8233). */
export const DEFAULT_CONSOLE_PORT = 8234;

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/** `console`: the operator console, a web page to approve, reject and resolve on 127.0.0.1. */
export const consoleCommand: StackCommandSpec<ConsoleInput> = {
  name: 'console',
  usage: {
    synopsis:
      'console [--port <n>] [--operator <name>] [--trust-proxy-header <name>] [--allowed-host <h>] [--temporal-ui <url>]',
    description: [
      'serves the operator console on 127.0.0.1 (port 8234): calls waiting for approval with their',
      'evidence and untrusted text, unknown outcomes with their findings, and each call with its',
      'audit; approve, reject and resolve sign like the CLI as --operator (else TTC_OPERATOR), or',
      'behind an identity-aware proxy as the user its --trust-proxy-header names (docs/console.md)',
    ],
  },
  parse: (args) => {
    const options = {
      port: { type: 'string' },
      operator: { type: 'string' },
      'trust-proxy-header': { type: 'string' },
      'allowed-host': { type: 'string' },
      'temporal-ui': { type: 'string' },
    } as const;
    const { values, json } = parseCommandArgs(args, options);
    const port = optionalString(values, 'port');
    const operator = optionalString(values, 'operator');
    const header = optionalString(values, 'trust-proxy-header');
    const allowed = optionalString(values, 'allowed-host');
    const temporalUi = optionalString(values, 'temporal-ui');
    if (header !== undefined && !HEADER_NAME.test(header))
      throw usageError(`--trust-proxy-header must be a header name, not '${header}'`);
    if (header !== undefined && operator !== undefined)
      throw usageError('give --operator (a local console) or --trust-proxy-header (behind a proxy), not both');
    if (temporalUi !== undefined && !/^https?:\/\/[^\s]+$/.test(temporalUi))
      throw usageError(`--temporal-ui must be an http(s) URL, not '${temporalUi}'`);
    return {
      json,
      port: port === undefined ? DEFAULT_CONSOLE_PORT : parsePort(port, '--port'),
      allowedHosts: allowed === undefined ? [] : [allowed],
      ...(operator === undefined ? {} : { operator }),
      ...(header === undefined ? {} : { trustProxyHeader: header }),
      ...(temporalUi === undefined ? {} : { temporalUi }),
    };
  },
  load: async () => {
    const { runConsole } = await import('../console-command.js');
    return (input, ctx) => runConsole(ctx, input);
  },
};

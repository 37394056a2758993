import { parsePort } from '../cli-config.js';
import { optionalString, parseCommandArgs } from '../command-args.js';
import type { StackCommandSpec } from '../command.js';

/** Where the codec server listens, which Temporal UI origins may call it, and under which other host names. */
export interface CodecServerInput {
  readonly json: boolean;
  readonly port: number;
  readonly origins: readonly string[];
  readonly allowedHosts: readonly string[];
}

/** The local dev server's UI, under both names a browser may use for it. */
const DEV_UI_ORIGINS = ['http://localhost:8233', 'http://127.0.0.1:8233'];

/** `codec-server`: decrypts payloads for the Temporal UI with the keys of TTC_CODEC_KEYS. */
export const codecServerCommand: StackCommandSpec<CodecServerInput> = {
  name: 'codec-server',
  usage: {
    synopsis: 'codec-server [--port <n>] [--ui-origin <url>] [--allowed-host <h>]',
    description: [
      'serves /encode and /decode on 127.0.0.1 (port 8888) with the keys of TTC_CODEC_KEYS,',
      'so the Temporal UI (codec endpoint setting) shows encrypted payloads decrypted; only',
      'to requests bearing TTC_CODEC_TOKEN (else a token it makes and prints) as a bearer',
      'token or in the path (the endpoint it prints), from --ui-origin (default: the local',
      'dev UI on port 8233), with a loopback Host or --allowed-host (a reverse proxy)',
    ],
  },
  parse: (args) => {
    const { values, json } = parseCommandArgs(args, {
      port: { type: 'string' },
      'ui-origin': { type: 'string' },
      'allowed-host': { type: 'string' },
    });
    const port = optionalString(values, 'port');
    const origin = optionalString(values, 'ui-origin');
    const allowed = optionalString(values, 'allowed-host');
    return {
      json,
      port: port === undefined ? 8888 : parsePort(port, '--port'),
      origins: origin === undefined ? DEV_UI_ORIGINS : [origin.replace(/\/+$/, '')],
      allowedHosts: allowed === undefined ? [] : [allowed],
    };
  },
  load: async () => {
    const { runCodecServer } = await import('../codec-server-command.js');
    return (input, ctx) => runCodecServer(ctx, input);
  },
};

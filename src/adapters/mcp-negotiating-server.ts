import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { InitializeResultSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * The SDK's low-level `Server`, remembering the protocol revision it agreed on in `initialize`: a `CallToolResult`
 * depends on it (`resultType` from 2026-07-28 on) and the SDK does not expose it. It is read from the server's own
 * `initialize` answer as that is sent, so it is exactly what the client was told. A server serves one connection at
 * a time, so it holds one value, reset by every `connect`.
 */
export class NegotiatingServer extends Server {
  #protocolVersion: string | undefined;

  /** The revision agreed with the connected client; `undefined` before `initialize` was answered. */
  get protocolVersion(): string | undefined {
    return this.#protocolVersion;
  }

  override async connect(transport: Transport): Promise<void> {
    this.#protocolVersion = undefined;
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      if (this.#protocolVersion === undefined && 'result' in message) {
        const answer = InitializeResultSchema.safeParse(message.result);
        if (answer.success) this.#protocolVersion = answer.data.protocolVersion;
      }
      return send(message, options);
    };
    return super.connect(transport);
  }
}

import { randomUUID } from 'node:crypto';
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Events kept per session for a client that reconnects to an SSE stream; older ones are dropped first. */
const MAX_EVENTS = 1000;

/**
 * Server-sent events kept in memory so a client whose SSE stream was closed (SSE polling) or dropped can resume it
 * with `Last-Event-ID`. Bounded: a client that stays away past `MAX_EVENTS` newer events misses the older ones — but
 * a tool call's outcome is never only here: it is its workflow's result (and a task's, via tasks/result).
 */
export class BoundedEventStore implements EventStore {
  readonly #events = new Map<string, { readonly streamId: string; readonly message: JSONRPCMessage }>();

  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    // The stream id leads the event id, so a stream's events are found in the order they were stored.
    const eventId = `${streamId}_${randomUUID()}`;
    this.#events.set(eventId, { streamId, message });
    if (this.#events.size > MAX_EVENTS) this.#events.delete(this.#events.keys().next().value as string);
    return Promise.resolve(eventId);
  }

  getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return Promise.resolve(this.#events.get(eventId)?.streamId);
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const last = this.#events.get(lastEventId);
    if (last === undefined) return '';
    let after = false;
    for (const [eventId, event] of [...this.#events]) {
      if (eventId === lastEventId) after = true;
      else if (after && event.streamId === last.streamId) await send(eventId, event.message);
    }
    return last.streamId;
  }
}

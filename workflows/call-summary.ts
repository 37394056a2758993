import type { ReadyCall } from '../activities/prepare-call.js';

/** One line for the UI: tool, effect and a short, secret-free argument preview. */
export function callSummary(prepared: ReadyCall): string {
  let args: string;
  try {
    args = JSON.stringify(prepared.preview.arguments) ?? '';
  } catch {
    args = '';
  }
  const clipped = args.length > 120 ? `${args.slice(0, 119)}…` : args;
  return `${prepared.identity.tool} [${prepared.effect}] ${clipped}`;
}

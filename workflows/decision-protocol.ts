import { patched } from '@temporalio/workflow';
import { DECISIONS_VERIFIED_PATCH } from '../src/wire/names.js';

// Decided once per run, on first use; module state is per workflow execution in the sandbox.
let verified: boolean | undefined;

/**
 * True when this run's decisions count only once the worker verified them (every run started by this version).
 * False for a run recorded before that change, which keeps deciding the way it started, so its history replays.
 * The first answer is kept for the whole run: `patched()` alone may say "no" while replaying and "yes" once the
 * same run reaches new events, which would change the rules halfway.
 */
export function decisionsVerified(): boolean {
  verified ??= patched(DECISIONS_VERIFIED_PATCH);
  return verified;
}

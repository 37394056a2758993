import type { VersioningBehavior } from '@temporalio/common';

/**
 * Worker Versioning behaviour of the package's workflows (`reconcileToolCall`, `agentLoop`): `AUTO_UPGRADE`. Both can
 * outlive a deployment by far — a reconciliation waits for a human, an agent loop for approvals — and pinning them
 * would keep every old worker version running until the last one closed. They may move to new code instead because
 * the package keeps them replay-compatible itself: command changes go behind patches and recorded histories of every
 * release replay in the tests (docs/temporal-runtime.md, *Upgrades*). Ignored unless the worker uses Worker Versioning.
 */
export const PACKAGE_WORKFLOW_VERSIONING: VersioningBehavior = 'AUTO_UPGRADE';

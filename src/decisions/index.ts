// `temporal-tool-contract/decisions`: signed approvals and resolutions. An approval service imports it to sign
// decisions (it needs nothing of Temporal); workers pass `signedDecisions({ keys })` to the plugin to verify them.
export {
  signDecision,
  DEFAULT_DECISION_TTL_MS,
  type ApprovalStatement,
  type ResolutionStatement,
  type SignOptions,
} from './sign.js';
export {
  signedDecisions,
  type DecisionAuthenticator,
  type DecisionAuthentication,
  type AuthenticatedDecision,
  type AuthenticationFailure,
} from './authenticator.js';
export { unauthenticatedForDevelopment, type UnauthenticatedDecisions } from './development.js';
export { verifyingKeysFromEnv, signingKeyFromEnv, DECISION_KEY_VARIABLES } from './env-keys.js';
export {
  parseDecisionKey,
  parseDecisionKeyList,
  formatDecisionKey,
  generateDecisionKey,
  verifyingKey,
  DecisionKeyError,
  DECISION_ALGORITHMS,
  DECISION_KEY_FORM,
  type DecisionKey,
  type DecisionAlgorithm,
} from './keys.js';
export { DECISION_TOKEN_VERSION, type DecisionClaims, type ApprovalClaims, type ResolutionClaims } from './claims.js';
export { DECISION_REFUSALS, type DecisionRefusal } from '../wire/decisions.js';

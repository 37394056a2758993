import type { BusinessErrorDeclaration } from './tool-spec.js';
import {
  CATALOG_MESSAGE_VARIANTS,
  ERROR_CATALOG,
  isCatalogCode,
  type CatalogCode,
  type Recovery,
} from './error-catalog.js';

/** The parts of a model-visible error the catalog fixes. */
export interface CatalogedError {
  readonly code: string;
  readonly category: string;
  readonly message: string;
  readonly retryable: boolean;
  readonly recovery: string;
}

/**
 * How `error` disagrees with the catalog (SPEC §4), one line per field; empty when it agrees. A catalog code must
 * carry its entry's category, retryability and recovery, and its message or one of the message's named variants. Any
 * other code is a business code: it borrows the `BUSINESS_RULE` entry's category and retryability, and — when the
 * tool's declarations are at hand — it must be declared, with the declared message and recovery. Without them (the
 * schema alone cannot know a tool) a business code's message and recovery are not checked.
 */
export function catalogDisagreements(
  error: CatalogedError,
  declared?: Readonly<Record<string, BusinessErrorDeclaration>>,
): string[] {
  if (isCatalogCode(error.code)) {
    const entry = ERROR_CATALOG[error.code];
    return [
      ...fieldDisagreements(error, entry),
      ...(catalogMessageAllowed(error.code, error.message) ? [] : [`message of ${error.code} is not the catalog's`]),
    ];
  }
  const business = ERROR_CATALOG.BUSINESS_RULE;
  const problems = fieldDisagreements(error, { category: business.category, retryable: business.retryable });
  if (declared === undefined) return problems;
  const declaration = Object.hasOwn(declared, error.code) ? declared[error.code] : undefined;
  if (declaration === undefined)
    return [...problems, `${error.code} is neither a catalog code nor declared by the tool`];
  if (error.message !== declaration.message) problems.push(`message of ${error.code} is not the declared one`);
  if (error.recovery !== declaredRecovery(declaration))
    problems.push(`recovery of ${error.code} is not the declared one`);
  return problems;
}

/** The recovery a declared business error carries: its own, else `ask_user` when it needs input, else `BUSINESS_RULE`'s. */
export function declaredRecovery(declaration: BusinessErrorDeclaration): Recovery {
  return (
    declaration.recovery ?? (declaration.status === 'needs_input' ? 'ask_user' : ERROR_CATALOG.BUSINESS_RULE.recovery)
  );
}

function fieldDisagreements(
  error: CatalogedError,
  fixed: { readonly category: string; readonly retryable: boolean; readonly recovery?: string },
): string[] {
  const problems: string[] = [];
  if (error.category !== fixed.category) problems.push(`category of ${error.code} must be ${fixed.category}`);
  if (error.retryable !== fixed.retryable)
    problems.push(`retryable of ${error.code} must be ${String(fixed.retryable)}`);
  if (fixed.recovery !== undefined && error.recovery !== fixed.recovery)
    problems.push(`recovery of ${error.code} must be ${fixed.recovery}`);
  return problems;
}

function catalogMessageAllowed(code: CatalogCode, message: string): boolean {
  const text = ERROR_CATALOG[code].message;
  if (message === text) return true;
  if (CATALOG_MESSAGE_VARIANTS.alternatives[code]?.includes(message) === true) return true;
  return CATALOG_MESSAGE_VARIANTS.detailed.includes(code) && message.startsWith(`${text.replace(/\.$/, '')}: `);
}

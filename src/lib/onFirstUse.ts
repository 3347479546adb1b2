/**
 * A value (typically a module) loaded on first use, once: start-up time and memory do not pay
 * for what an instance may never use (SAML, SMTP). A failed load is not retried.
 */
export function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | null = null;
  return () => (loaded ??= load());
}

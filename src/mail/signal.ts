/**
 * "A mail was queued": wakes the delivery loops of this process (src/mail/delivery.ts) so a
 * new mail leaves at once instead of at the next timer tick. `queueMail` calls it from inside
 * the caller's transaction; a loop's claim is a write of its own, which the writer mutex
 * (db/client.ts) runs only after that transaction has committed or rolled back.
 */
type Listener = () => void;

const listeners = new Set<Listener>();

/** Signals every delivery loop of the process (on the next turn of the event loop). */
export function mailQueued(): void {
  setImmediate(() => {
    for (const l of listeners) l();
  });
}

/** Calls `fn` whenever a mail is queued; returns the unsubscribe function. */
export function onMailQueued(fn: Listener): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

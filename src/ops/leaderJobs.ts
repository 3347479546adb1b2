/**
 * Background work that runs once across replicas (docs/design.md "Several replicas: what is
 * shared"): started when this process becomes the leader (db/leader.ts), stopped when it stops
 * being one. On SQLite the process is always the leader: the jobs start at once and run for its
 * life, as before.
 */
import type { Leadership } from "../db/leader";

/** A job: started with no argument, answers how to stop it. */
export type LeaderJob = () => () => void | Promise<void>;

/**
 * Runs `jobs` while `leadership` says this process leads (`noted` hears each change); answers
 * a function that stops them for good (shutdown), waiting for their stops.
 */
export function runWhileLeader(leadership: Leadership, jobs: LeaderJob[], noted?: (leader: boolean) => void): () => Promise<void> {
  let stops: (() => void | Promise<void>)[] | null = null;
  let stopping: Promise<unknown> = Promise.resolve();
  const unsubscribe = leadership.onChange((leader) => {
    noted?.(leader);
    if (leader && stops === null) stops = jobs.map((start) => start());
    else if (!leader && stops !== null) {
      const s = stops;
      stops = null;
      stopping = Promise.all(s.map((stop) => stop()));
    }
  });
  return async () => {
    unsubscribe();
    const s = stops ?? [];
    stops = null;
    await Promise.all([stopping, ...s.map((stop) => stop())]);
  };
}

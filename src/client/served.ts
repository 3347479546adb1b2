/**
 * A catalog talent as the playbook serves it with `include=detectors` (src/resolution/playbook.ts): each rule with its
 * detectors, their globs (their own, else the talent's triggers.files) and the severity of their findings (blocking
 * only where earned). For what runs the client's detectors on a talent read from disk: the precision replay and tests.
 */
import { detectorFiles } from "../catalog/detect";
import type { Talent } from "../catalog/format";
import { detectorSeverity } from "../catalog/measured";
import type { ServedObligation } from "./check";

export function servedObligationOf(t: Talent): ServedObligation {
  const triggers = t.triggers?.files ?? [];
  return {
    id: t.id,
    kind: "talent",
    version: t.version,
    rules: t.rules.map((r) => ({
      id: r.id,
      severity: r.severity,
      title: r.title,
      ...(r.detect ? { detect: r.detect.map((d) => ({ ...d, files: detectorFiles(d, triggers), severity: detectorSeverity(r) })) } : {}),
    })),
  };
}

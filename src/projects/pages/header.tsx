/** @jsxImportSource hono/jsx */
/** The head of `/projects/:id` (pages/project.tsx), on every tab and on the Settings tab's refused post (pages/settings.tsx). */
import type { Project } from "../service";

export const TABS = ["overview", "activity", "keys", "settings"] as const;
export type Tab = (typeof TABS)[number];

/** The project's name, description and tabs (`tab`: the one shown). */
export function ProjectHeader(props: { project: Project; tab: Tab }) {
  const p = props.project;
  return (
    <>
      <p class="crumbs">
        <a href="/">Projects</a> /
      </p>
      <h1>{p.name}</h1>
      {p.description ? <p class="muted">{p.description}</p> : null}
      <nav class="tabs" aria-label="Project">
        {TABS.map((t) => (
          <a href={`/projects/${p.id}${t === "overview" ? "" : `?tab=${t}`}`} aria-current={t === props.tab ? "page" : undefined}>
            {t[0]!.toUpperCase() + t.slice(1)}
          </a>
        ))}
      </nav>
    </>
  );
}

// talentd dashboard behaviour (no framework; htmx does the requests): copy buttons, the
// command palette (Ctrl/⌘-K, arrows, Enter, Escape), typed confirmations. Every page works
// without it; it only adds convenience.
(() => {
  const $ = (sel, root = document) => root.querySelector(sel);

  // a picker's filter (src/policy/picker.tsx): typing hides the choices that do not match (the ticked ones stay) and says
  // when none of the others does; Enter filters here instead of reloading the page, unless nothing matches: then
  // the filter's form asks the server, which offers the closest ids ("did you mean")
  for (const input of document.querySelectorAll("input[data-picker-filter]")) {
    const picker = document.getElementById(input.dataset.pickerFilter);
    if (!picker) continue;
    const apply = () => {
      const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      let matches = 0;
      for (const item of picker.querySelectorAll("[data-picker-item]")) {
        const box = $("input[type=checkbox]", item);
        const ticked = box && box.checked;
        const match = words.every((w) => item.dataset.pickerItem.includes(w));
        item.hidden = !ticked && !match;
        if (!ticked && match) matches++;
      }
      const empty = $("[data-picker-empty]", picker);
      if (empty) empty.hidden = matches > 0 || words.length === 0;
      return matches;
    };
    input.addEventListener("input", apply);
    input.addEventListener("keydown", (e) => {
      if (e.key !== "Enter") return;
      if (apply() > 0) e.preventDefault();
    });
  }

  // copy buttons: data-copy="<selector of the element whose text to copy>"
  document.addEventListener("click", async (e) => {
    const button = e.target.closest("[data-copy]");
    if (!button) return;
    const source = $(button.dataset.copy);
    if (!source) return;
    const text = source.textContent;
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      const range = document.createRange();
      range.selectNodeContents(source);
      const sel = getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      document.execCommand("copy");
    }
    const label = button.firstChild;
    if (label && label.nodeType === Node.TEXT_NODE) {
      label.textContent = "Copied";
      setTimeout(() => (label.textContent = "Copy"), 1500);
    }
  });

  // the command palette
  const palette = () => $("#palette");
  const openPalette = () => {
    const d = palette();
    if (!d || d.open) return;
    d.showModal();
    const q = $("#palette-q", d);
    q.value = "";
    q.focus();
  };
  document.addEventListener("keydown", (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "k") {
      e.preventDefault();
      openPalette();
    }
  });
  document.addEventListener("click", (e) => {
    if (e.target.closest("#palette-open")) openPalette();
    const d = palette();
    if (d && e.target === d) d.close(); // a click on the backdrop
  });
  document.addEventListener("keydown", (e) => {
    const d = palette();
    if (!d || !d.open || e.target.id !== "palette-q") return;
    const items = [...d.querySelectorAll("#palette-results li:not([data-empty])")];
    if (items.length === 0) {
      if (e.key === "Enter") e.preventDefault();
      return;
    }
    let i = Math.max(0, items.findIndex((x) => x.dataset.active === "true"));
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      i = (i + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length;
      items.forEach((x, j) => (x.dataset.active = j === i ? "true" : "false"));
      items[i].scrollIntoView({ block: "nearest" });
    } else if (e.key === "Enter") {
      e.preventDefault();
      const link = $("a", items[i]);
      if (link) window.location.assign(link.href);
      else $("form", items[i])?.requestSubmit();
    }
  });

  // typed confirmation: the submit button of form[data-confirm-name] works once the name is typed
  // (the page sends it enabled: without JavaScript the server checks the typed name)
  for (const form of document.querySelectorAll("form[data-confirm-name]")) {
    const input = $('input[name="confirm"]', form);
    $('button[type="submit"]', form).disabled = !input || input.value !== form.dataset.confirmName;
  }
  document.addEventListener("input", (e) => {
    const form = e.target.closest("form[data-confirm-name]");
    if (form) $('button[type="submit"]', form).disabled = e.target.value !== form.dataset.confirmName;
  });

  // an id that follows a field: input[data-id-follows="<selector of a TALENT.md textarea>"] writes what is typed into
  // the front matter's `id:` line while that line still holds the template's id or what was typed before
  document.addEventListener("input", (e) => {
    const input = e.target.closest && e.target.closest("input[data-id-follows]");
    const area = input && document.querySelector(input.dataset.idFollows);
    if (!area) return;
    const slug = (v) => (/^[a-z0-9]+(-[a-z0-9]+)*$/.test(v || "") ? v : null);
    const template = input.dataset.templateId;
    const now = slug(input.value) || template;
    const end = area.value.indexOf("\n---", 3);
    if (!area.value.startsWith("---\n") || end < 0) return;
    const head = area.value.slice(0, end);
    // what the id line may hold: what was typed before, the slug the page was sent with, the template's
    const line = [input.dataset.followed, input.defaultValue, template]
      .filter(slug)
      .map((id) => new RegExp("^id:[ \\t]*" + id + "[ \\t]*$", "m"))
      .find((re) => re.test(head));
    if (!line) return;
    area.value = head.replace(line, "id: " + now) + area.value.slice(end);
    input.dataset.followed = now;
  });

  // a field the server refused (an issue of the #flash alert naming it): its message moves under the field itself
  // (ui/form.tsx Field's error slot, named by the control's aria-describedby), said once (docs/design.md "Form
  // refusals"); the alert then says one sentence. Cleared when the form is sent again, and by a success.
  const clearFieldErrors = (form) => {
    for (const slot of form.querySelectorAll(".field-error")) {
      if (slot.hidden && !slot.textContent) continue;
      slot.hidden = true;
      slot.textContent = "";
      slot.removeAttribute("data-from-flash");
      const control = form.querySelector(`[aria-describedby~="${slot.id}"]`);
      if (!control) continue;
      control.removeAttribute("aria-invalid");
      const rest = control.getAttribute("aria-describedby").split(" ").filter((x) => x !== slot.id);
      if (rest.length) control.setAttribute("aria-describedby", rest.join(" "));
      else control.removeAttribute("aria-describedby");
    }
    // the top line of a form answered without JavaScript (ui/form.tsx RefusalLine), when the page had one
    for (const line of form.querySelectorAll("p.error[role=alert]")) line.remove();
  };
  const clearFlash = () => {
    const flash = document.getElementById("flash");
    if (!flash) return;
    flash.replaceChildren();
    flash.removeAttribute("data-placed");
  };
  document.addEventListener("htmx:beforeRequest", (e) => {
    const form = e.target.closest && e.target.closest("form");
    if (form) clearFieldErrors(form);
  });
  // a success clears every earlier refusal: the alert, and the errors of the form that was sent
  document.addEventListener("htmx:afterRequest", (e) => {
    if (!e.detail.successful) return;
    const verb = ((e.detail.requestConfig && e.detail.requestConfig.verb) || "get").toLowerCase();
    const source = e.detail.requestConfig && e.detail.requestConfig.elt;
    const form = source && source.closest && source.closest("form");
    // a read of no form (a poll, a link, the palette's search) leaves a refusal alone
    if (verb === "get" && (!form || form.getAttribute("method") === "dialog")) return;
    clearFlash();
    if (form && form.isConnected) clearFieldErrors(form);
  });
  // a refusal no field shows, its alert out of view (on a phone #flash is not sticky: app.css): brought into view
  const showFlash = () => {
    const flash = document.getElementById("flash");
    if (flash && flash.getBoundingClientRect().top < 0) flash.scrollIntoView({ block: "start" });
  };
  document.addEventListener("htmx:afterSettle", (e) => {
    if (!e.detail.failed) return;
    const flash = document.getElementById("flash");
    if (flash) flash.removeAttribute("data-placed");
    const source = e.detail.requestConfig && e.detail.requestConfig.elt;
    const form = source && source.closest && source.closest("form");
    if (!form) return showFlash();
    // an issue's path names a control (its name, or its data-issue-path), or an item of it ("domains/0", "files.a.md", "files[1]")
    const names = (path, c) => [c.getAttribute("name"), c.dataset.issuePath].some((p) => p && (path === p || ["/", ".", "["].some((sep) => path.startsWith(p + sep))));
    const controls = [...form.querySelectorAll("[name], [data-issue-path]")];
    const alert = document.querySelector("#flash [role=alert]");
    const placed = [];
    // (or the alert's own sentence, when it is the refusal of one field: a 409 naming it)
    for (const issue of document.querySelectorAll("#flash [data-field]")) {
      const found = controls.find((c) => names(issue.dataset.field, c));
      // a check box or radio of a group: the group's fieldset holds the error slot
      const control = found && !document.getElementById(`${found.id}-error`) ? found.closest("fieldset[id]") || found : found;
      const slot = control && control.id && document.getElementById(`${control.id}-error`);
      if (!slot) continue;
      // beside its field, in the words the server gave it (ui/refusalWords.ts: the field's name, never an API path)
      const text = issue.dataset.message || issue.textContent.trim();
      // several issues of one control: each said, in the order of the alert
      slot.textContent = slot.dataset.fromFlash ? `${slot.textContent}; ${text}` : text;
      slot.hidden = false;
      slot.dataset.fromFlash = "true";
      const by = (control.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
      if (!by.includes(slot.id)) control.setAttribute("aria-describedby", [...by, slot.id].join(" "));
      control.setAttribute("aria-invalid", "true");
      if (!placed.includes(control)) placed.push(control);
      // said once: no longer in the alert
      const list = issue.parentElement;
      issue.remove();
      if (list && list.tagName === "UL" && !list.children.length) list.remove();
    }
    if (placed.length === 0) return showFlash();
    if (alert) {
      // the alert: one sentence pointing to the fields, after what no field shows (if anything)
      const sentence = placed.length === 1 ? alert.dataset.markedOne : (alert.dataset.markedMany || "").replace("{n}", String(placed.length));
      const left = alert.querySelector("ul, p");
      // on the title's line when it is all the alert says; under what no field shows otherwise
      const line = document.createElement(left ? "p" : "span");
      line.textContent = sentence;
      if (!left) {
        const title = alert.querySelector("strong");
        alert.replaceChildren(...(title ? [title, " "] : []), line);
      } else alert.append(line);
      if (flash) flash.dataset.placed = "true";
    }
    // the first field to fix, in view and focused (the alert no longer sticks over it)
    placed[0].scrollIntoView({ block: "center" });
    const first = placed[0].tagName === "FIELDSET" ? placed[0].querySelector("input, select, textarea") : placed[0];
    if (first && first.focus) first.focus({ preventScroll: true });
  });

  // a change confirmed from the question in #flash (ui/errors.tsx ConfirmFragment): the question goes once it is answered
  document.addEventListener("htmx:afterRequest", (e) => {
    const asked = e.detail.successful && e.detail.elt && e.detail.elt.closest && e.detail.elt.closest("#confirm-change");
    if (asked) asked.remove();
  });

  // a change the server refused: form[data-reset-on-error] shows again what is true (e.g. the role it kept)
  document.addEventListener("htmx:responseError", (e) => {
    const form = e.target.closest && e.target.closest("form[data-reset-on-error]");
    if (form) form.reset();
  });
})();

// the header's menu: a browser without ::details-content (public/app.css) opens it when the screen is wide
(() => {
  const menu = document.querySelector("header.top details.menu");
  if (menu && !CSS.supports("selector(::details-content)") && matchMedia("(min-width: 1100px)").matches) menu.open = true;
})();

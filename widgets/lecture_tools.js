// The Stepper's lecture tools (anywidget ES module, bundled between sequence.js and pyflowkit.js by
// assets.widget_bundle): the theme (light / dark / high-contrast, or following JupyterLab's and
// Notebook 7's theme), the font scale (A− / A+) and the step scrubber with its bookmarks.
// Names here start with `pfk` (one scope with the other files).

const PFK_THEMES = ["light", "dark", "high-contrast"];

// A CSS colour (any syntax the browser knows) as [r, g, b] 0-255, or null.
function pfkRgb(css) {
  if (!css) return null;
  const probe = document.createElement("span");
  probe.style.color = css;
  if (!probe.style.color) return null;
  probe.style.display = "none";
  document.body.appendChild(probe);
  const m = getComputedStyle(probe).color.match(/[\d.]+/g);
  probe.remove();
  return m && m.length >= 3 ? m.slice(0, 3).map(Number) : null;
}

// WCAG relative luminance of [r, g, b].
function pfkLuminance(rgb) {
  const lin = rgb.map((c) => (c / 255 <= 0.04045 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4));
  return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
}

// The front end's theme: JupyterLab and Notebook 7 mark <body> (data-jp-theme-light, -name);
// else the luminance of Lab's --jp-layout-color0; else the system's colour scheme.
function pfkFrontEndTheme() {
  const b = document.body;
  const name = b.dataset.jpThemeName || "";
  if (/high.?contrast/i.test(name)) return "high-contrast";
  if (b.dataset.jpThemeLight === "false") return "dark";
  if (b.dataset.jpThemeLight === "true") return "light";
  const rgb = pfkRgb(getComputedStyle(b).getPropertyValue("--jp-layout-color0").trim());
  if (rgb) return pfkLuminance(rgb) < 0.18 ? "dark" : "light";
  return window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

// The `theme` trait on the widget's root: classes pfk-themed and pfk-theme-<resolved> (the colours
// of theme_colours.css); "auto" follows the front end's theme when it changes.
function pfkTheme(model, root, changed) {
  const apply = () => {
    const choice = model.get("theme") || "auto";
    const theme = PFK_THEMES.includes(choice) ? choice : pfkFrontEndTheme();
    if (root.dataset.pfkTheme === theme) return;
    for (const t of PFK_THEMES) root.classList.toggle(`pfk-theme-${t}`, t === theme);
    root.classList.add("pfk-themed");
    root.dataset.pfkTheme = theme;
    if (changed) changed(theme);
  };
  const watch = new MutationObserver(apply);
  watch.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light", "data-jp-theme-name"] });
  model.on("change:theme", apply);
  apply();
  return () => {
    watch.disconnect();
    model.off("change:theme", apply);
  };
}

// The text size of the graph, the sequence diagram and the narration (`font_scale`, 1 to 2).
function pfkFontScale(model) {
  const s = Number(model.get("font_scale"));
  return Number.isFinite(s) && s >= 1 ? Math.min(2, s) : 1;
}

// A− / A+ buttons (into `bar`) that set `font_scale` by 1/8; `apply(scale)` on every change.
function pfkFontControls(model, bar, apply) {
  const box = document.createElement("span");
  box.className = "pfk-font-controls";
  const make = (label, cls, delta, title) => {
    const b = document.createElement("button");
    b.className = `pfk-btn ${cls}`;
    b.textContent = label;
    b.title = title;
    b.onclick = () => {
      model.set("font_scale", Math.min(2, Math.max(1, pfkFontScale(model) + delta)));
      model.save_changes();
    };
    box.appendChild(b);
    return b;
  };
  const down = make("A−", "pfk-font-down", -0.125, "smaller text (graph, sequence diagram, narration)");
  const up = make("A+", "pfk-font-up", 0.125, "larger text (graph, sequence diagram, narration)");
  bar.appendChild(box);
  const onChange = () => {
    const s = pfkFontScale(model);
    down.disabled = s <= 1;
    up.disabled = s >= 2;
    up.title = `larger text (now ${Math.round(100 * s)}%)`;
    apply(s);
  };
  model.on("change:font_scale", onChange);
  onChange();
  return () => model.off("change:font_scale", onChange);
}

// The step scrubber: a range over the run's steps (0 … the furthest step reached), its bookmarks
// marked on the track (a click goes there), a Bookmark button. Moving it sends `go_to` (the
// Stepper's Back machinery: one deterministic replay from the seed, or steps forward).
function pfkScrubber(model, send) {
  const box = document.createElement("div");
  box.className = "pfk-scrubber";
  const track = document.createElement("div");
  track.className = "pfk-scrub-track";
  const range = document.createElement("input");
  range.type = "range";
  range.className = "pfk-scrub";
  range.min = "0";
  range.step = "1";
  range.title = "the step scrubber: drag to a step (← / → step back and forward)";
  range.setAttribute("aria-label", "step");
  const marks = document.createElement("div");
  marks.className = "pfk-scrub-marks";
  track.append(range, marks);
  const value = document.createElement("span");
  value.className = "pfk-scrub-value";
  const mark = document.createElement("button");
  mark.className = "pfk-btn pfk-bookmark";
  mark.textContent = "☆";
  mark.title = "Bookmark this step (saved with the lesson; its ◆ on the scrubber returns to it)";
  mark.onclick = () => send({ cmd: "bookmark" });
  box.append(track, value, mark);
  let dragging = false;
  const end = () => {
    const marked = Object.values(model.get("bookmarks") || {});
    return Math.max(1, model.get("furthest_step") || 0, model.get("step_count") || 0, ...marked);
  };
  const draw = () => {
    const max = end();
    const now = model.get("step_count") || 0;
    range.max = String(max);
    if (!dragging) range.value = String(now);
    value.textContent = `${now} / ${max}`;
    const items = Object.entries(model.get("bookmarks") || {}).map(([name, step]) => {
      const b = document.createElement("button");
      b.className = "pfk-scrub-mark";
      b.textContent = "◆";
      b.dataset.step = String(step);
      b.dataset.name = name;
      b.title = `${name} (step ${step})`;
      b.style.left = `calc(9px + (100% - 18px) * ${step / max})`;
      b.onclick = (ev) => {
        ev.stopPropagation();
        send({ cmd: "go_to", step: name });
      };
      return b;
    });
    marks.replaceChildren(...items);
  };
  range.addEventListener("input", () => {
    dragging = true;
    value.textContent = `→ ${range.value} / ${range.max}`;
  });
  range.addEventListener("change", () => {
    dragging = false;
    const step = Number(range.value);
    if (step !== model.get("step_count")) send({ cmd: "go_to", step });
  });
  const events = ["change:step_count", "change:furthest_step", "change:bookmarks"];
  for (const ev of events) model.on(ev, draw);
  draw();
  box.cleanup = () => events.forEach((ev) => model.off(ev, draw));
  return box;
}

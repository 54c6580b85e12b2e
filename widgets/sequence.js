// pyflowkit's sequence diagram (anywidget ES module, no build step). The Python side sends the
// lifelines' header and the arrows as SVG; this pane keeps the header fixed above the arrows,
// scrolls (vertically only) to the current step unless the reader scrolled back, and never
// changes its own size. The kernel lays the lifelines out to the pane's width (seq_width).
// pyflowkit.js is bundled after this file (assets.widget_bundle), so names here start with `seq`.

function seqPane(model, box, timed) {
  const frame = document.createElement("div");
  frame.className = "pfk-seq-frame";
  const head = document.createElement("div");
  head.className = "pfk-seq-headbox";
  const body = document.createElement("div");
  body.className = "pfk-seq-bodybox";
  frame.title = "newest arrow at the bottom · current step on yellow · scroll back for older ones · hover an arrow for its log line";
  frame.append(head, body);
  box.append(frame);
  // the Stepper's font scale (A− / A+): both SVGs zoomed, laid out by the kernel to the width / zoom
  const zoom = () => {
    const s = Number(model.get("font_scale"));
    return Number.isFinite(s) && s > 1 ? Math.min(2, s) : 1;
  };
  const applyZoom = () => {
    const z = zoom();
    head.style.zoom = body.style.zoom = z === 1 ? "" : String(z);
    sent = 0;
    sendWidth();
    requestAnimationFrame(() => seqShowCurrent(frame, head, body));
  };
  // a click on a phase band's header collapses it to that row (or opens it); the current step's
  // band stays open
  const onBand = (ev) => {
    const g = ev.target.closest && ev.target.closest("g.pfk-seq-band");
    if (!g || g.dataset.current === "1" || model.get("seq_collapsed") === undefined) return;
    const key = Number(g.dataset.band);
    const now = model.get("seq_collapsed") || [];
    box.dataset.follow = "1"; // the redrawn rows: the current step's in view again
    model.set("seq_collapsed", now.includes(key) ? now.filter((k) => k !== key) : [...now, key]);
    model.save_changes();
  };
  body.addEventListener("click", onBand);
  let lastHead = null;
  let lastBody = null;
  // at the newest rows unless the reader scrolled back (kept by the scroll event: reading the
  // scroll position while drawing would force a layout in the middle of a step's answer)
  let atEnd = true;
  // a reader's own scrolling (wheel, touch, scrollbar, keys) keeps their rows until they return
  // to the end; the program's scrolling does not count
  let reader = false;
  for (const ev of ["wheel", "touchmove", "pointerdown", "keydown"]) {
    frame.addEventListener(ev, () => (reader = true), { passive: true });
  }
  let clipping = 0;
  frame.addEventListener("scroll", () => {
    // (the body's bottom padding and a row snapped under the header: up to ~60 px more)
    atEnd = frame.scrollTop + frame.clientHeight >= frame.scrollHeight - 110;
    if (atEnd) reader = false;
    if (!clipping) clipping = requestAnimationFrame(() => ((clipping = 0), seqClipUnder(head, body)));
  }, { passive: true });
  const draw = (timed || ((name, f) => f))("seq", () => {
    const h = model.get("seq_head") || "";
    if (h !== lastHead) {
      head.innerHTML = h;
      lastHead = h;
    }
    const b = model.get("seq_body") || "";
    if (b !== lastBody) {
      body.innerHTML = b;
      lastBody = b;
    }
    if (!reader || atEnd || box.dataset.follow === "1") {
      box.dataset.follow = "";
      // on the next frame, after every pane of the answer is redrawn: one layout, not one per pane
      if (!pending) pending = requestAnimationFrame(() => ((pending = 0), seqShowCurrent(frame, head, body)));
    }
  });
  let pending = 0;
  // the lifelines are laid out to the pane's width by the kernel: tell it the width
  let sent = 0;
  let timer = null;
  const sendWidth = () => {
    const w = Math.floor(frame.clientWidth / zoom());
    if (!w || Math.abs(w - sent) < 2 || model.get("seq_width") === undefined) return;
    sent = w;
    model.set("seq_width", w);
    model.save_changes();
  };
  // the first width at once (a pane rendered detached or hidden has none until it is shown: a
  // step answered before it came would lay every lifeline out at full width), later ones settled
  // a pane made shorter or taller (the narration above grew a line): the current step's rows in
  // view again, unless a reader holds their place
  let height = 0;
  const resize = new ResizeObserver(() => {
    clearTimeout(timer);
    if (!sent) sendWidth();
    else timer = setTimeout(sendWidth, 120);
    if (frame.clientHeight === height) return;
    height = frame.clientHeight;
    if ((!reader || atEnd) && !pending)
      pending = requestAnimationFrame(() => ((pending = 0), seqShowCurrent(frame, head, body)));
  });
  resize.observe(frame);
  model.on("change:seq_body", draw);
  model.on("change:seq_head", draw);
  model.on("change:font_scale", applyZoom);
  if (zoom() !== 1) head.style.zoom = body.style.zoom = String(zoom());
  draw();
  requestAnimationFrame(() => (sendWidth(), seqShowCurrent(frame, head, body)));
  const cleanup = () => {
    resize.disconnect();
    clearTimeout(timer);
    cancelAnimationFrame(pending);
    cancelAnimationFrame(clipping);
    model.off("change:seq_body", draw);
    model.off("change:seq_head", draw);
    model.off("change:font_scale", applyZoom);
    body.removeEventListener("click", onBand);
  };
  // before a command is sent: the pane's width now (0: hidden), to ride with the command. A
  // state update can be held back by ipywidgets' message throttle (an earlier update, the tab's,
  // not yet answered) while the command goes at once: the kernel would lay the answer out
  // without a width, every lifeline at full width.
  cleanup.widthNow = () => {
    clearTimeout(timer);
    sendWidth();
    return Math.floor(frame.clientWidth / zoom());
  };
  return cleanup;
}

// Scroll (vertically only) so that the current step's rows are all in view, under the fixed
// header; the newest row at the bottom when they do not all fit.
function seqShowCurrent(frame, head, body) {
  const current = body.querySelectorAll("rect.pfk-seq-current");
  if (!current.length) {
    // the newest row at the bottom (not the body's bottom padding: a short pane would show none)
    const pad = parseFloat(getComputedStyle(body).paddingBottom) * (Number(body.style.zoom) || 1);
    frame.scrollTop = frame.scrollHeight - frame.clientHeight - (pad || 0);
    seqSnap(frame, head, body, current);
    return seqClipUnder(head, body);
  }
  const headH = head.getBoundingClientRect().height;
  const first = current[0].getBoundingClientRect();
  const last = current[current.length - 1].getBoundingClientRect();
  const view = frame.getBoundingClientRect();
  const top = first.top - view.top - headH; // px below the header's bottom
  const bottom = last.bottom - view.top;
  const height = frame.clientHeight;
  // more rows than fit (a band's header among them, a failure's cascade): the newest ones, the
  // last at the bottom; else all of them, scrolled as little as can be
  if (last.bottom - first.top > height - headH || bottom > height) frame.scrollTop += bottom - height;
  else if (top < 0) frame.scrollTop += top;
  seqSnap(frame, head, body, current);
  seqClipUnder(head, body);
}

// The rows wholly under the pinned header are hidden: a row's arrowhead reaches a unit below its
// row (16 units tall on a line 7 above the row's bottom), which showed as a stray mark just under
// the header, beside the first row in view.
function seqClipUnder(head, body) {
  const svg = body.querySelector("svg.pfk-seq-body");
  if (!svg) return;
  const units = svg.height.baseVal.value;
  const box = svg.getBoundingClientRect();
  if (!units || !box.height) return;
  const under = ((head.getBoundingClientRect().bottom - box.top) * units) / box.height; // units
  for (const g of svg.children) {
    if (g.tagName !== "g") continue;
    const y = g.transform.baseVal.numberOfItems ? g.transform.baseVal.getItem(0).matrix.f : 0;
    const hide = y + SEQ_ROW <= under + 0.5;
    if (hide !== (g.dataset.under === "1")) {
      g.dataset.under = hide ? "1" : "";
      g.style.visibility = hide ? "hidden" : "";
    }
  }
}

// The pinned header covers whole rows only: the scroll position snapped to a row, so the first row
// in view starts at the header's bottom (never half under it). Snapped down (the rows move up,
// the body's bottom padding leaves room) unless that hides the current step's first row while
// all its rows fit; then up, unless that cuts its last row. Measured on screen (CSS zoom: the
// font scale, presenter mode).
const SEQ_ROW = 26; // px per row, as sequence_svg.ROW
function seqSnap(frame, head, body, current) {
  const svg = body.querySelector("svg.pfk-seq-body");
  const t = frame.scrollTop;
  if (!svg || !t) return;
  const units = svg.height.baseVal.value;
  const box = svg.getBoundingClientRect();
  if (!units || !box.height) return;
  const row = (box.height / units) * SEQ_ROW; // screen px per row
  const headBottom = head.getBoundingClientRect().bottom;
  const hidden = (headBottom - box.top) / row; // rows under the header
  const frac = hidden - Math.floor(hidden);
  if (frac < 0.03 || frac > 0.97) return;
  frame.scrollTop = t - Math.min(t, 8); // screen px per unit of scrollTop
  const per = (svg.getBoundingClientRect().top - box.top) / (t - frame.scrollTop) || 1;
  frame.scrollTop = t;
  const room = frame.scrollHeight - frame.clientHeight - t; // scrollTop units left below
  const down = (1 - frac) * row; // the rows move up by this (scroll down), or down by `up`
  const up = frac * row;
  const view = frame.getBoundingClientRect();
  const bottom = view.top + frame.clientHeight * (view.height / frame.offsetHeight);
  const first = current.length ? current[0].getBoundingClientRect().top : null;
  const last = current.length ? current[current.length - 1].getBoundingClientRect().bottom : null;
  const fits = first !== null && last - first <= bottom - headBottom;
  const canDown = down / per <= room + 0.5;
  if (canDown && (!fits || first - down >= headBottom - 1)) frame.scrollTop = t + down / per;
  else if (!fits || last + up <= bottom + 1) frame.scrollTop = t - up / per;
}

function seqRender({ model, el }) {
  el.classList.add("pfk-widget", "pfk-sequence", "pfk-themed", "pfk-auto"); // the front end's theme
  return seqPane(model, el);
}

export default { render: seqRender };

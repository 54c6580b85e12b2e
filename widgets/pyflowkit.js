// pyflowkit widgets' front end (anywidget ES module, no build step).
// One module for GraphView, Stepper, SequenceView and SparkProgress: the Python class sets the
// `_kind` trait. sequence.js is bundled before this file (assets.widget_bundle) for seqPane.

const SVG_SHAPES = "polygon, ellipse, path";
const MIN_FONT_PX = 14; // the smallest text on screen, also inside the scaled graph
const GRAPH_VIEW_MAX_PX = 360; // a standalone GraphView's frame at most (widgets.css)
const SCROLLBAR_PX = 16; // room for the frame's sideways scrollbar
const PROJECTOR_BELOW = 1400; // px of widget width: projector layout below, desk layout above
const STATE_ORDER = ["CREATED", "SCHEDULED", "DEPLOYING", "RUNNING", "FINISHED", "CANCELING", "CANCELED", "FAILED"];

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

const SVG_NS = "http://www.w3.org/2000/svg";
function svgEl(tag, attrs) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  return e;
}

// The smallest font-size (in SVG user units) of the drawing's text.
function minFontUnits(svg) {
  let min = Infinity;
  svg.querySelectorAll("text").forEach((t) => {
    if (t.closest("g.pfk-token, g.pfk-badge-svg, g.pfk-metrics-svg")) return;
    if (!t.textContent.trim()) return; // the blank lines that make room for a metrics strip
    const v = parseFloat(t.getAttribute("font-size") || "14");
    if (v > 0 && v < min) min = v;
  });
  return Number.isFinite(min) ? min : 14;
}

// ---- metrics strip (issue 23 item 5): what Flink's web UI shows, drawn in each subtask's box ----
// The view model (pyflowkit/notebook/subtask_metrics.py) computes every value and text; this only
// draws them: two lines at the bottom of the box (the layout left blank lines there), the
// back-pressure chip in its level's colour, a tooltip; channels whose buffers are full are marked.
function drawMetricStrips(svg, metrics, show) {
  svg.querySelectorAll("g.pfk-metrics-svg, g.pfk-gauge").forEach((t) => t.remove());
  svg.querySelectorAll("g.pfk-full").forEach((g) => g.classList.remove("pfk-full"));
  if (!show || !metrics) return;
  const top = svg.querySelector("g.graph") || svg;
  const font = minFontUnits(svg);
  const lineH = font * 1.15; // (the strip's two lines fill the two blank label lines and the margin)
  const text = (cls, x, y, content, attrs) => Object.assign(svgEl("text", { class: cls, x, y, "font-size": font, ...(attrs || {}) }), { textContent: content });
  for (const [id, m] of Object.entries(metrics.subtasks || {})) {
    const node = svg.querySelector(`g[id="${CSS.escape(id)}"]`);
    const shape = node && node.querySelector("path, polygon, ellipse");
    if (!shape) continue;
    const box = shape.getBBox();
    const g = svgEl("g", { class: `pfk-metrics-svg pfk-bp-${m.backPressureLevel}`, "data-id": id });
    const title = svgEl("title");
    title.textContent = m.title;
    g.appendChild(title);
    const pad = font * 0.2;
    const rows = m.strip.length;
    // the blank rows the layout left under the subtask's name
    let named = box.y;
    node.querySelectorAll("text").forEach((t) => t.textContent.trim() && (named = Math.max(named, t.getBBox().y + t.getBBox().height)));
    const y0 = named + pad;
    const h = rows * lineH + pad;
    g.appendChild(svgEl("rect", { class: "pfk-metrics-bg", x: box.x + pad, y: y0, width: box.width - 2 * pad, height: h, rx: font * 0.3 }));
    const base = (i) => y0 + pad + i * lineH + font * 0.95;
    m.strip.forEach((line, i) => g.appendChild(text("pfk-metrics-line", box.x + font * 0.5, base(i), line)));
    // the back-pressure chip at the strip's right end: the level over the ratio
    const chipW = font * 0.68 * Math.max(...m.chip.map((c) => c.length)) + font * 0.6;
    const chipX = box.x + box.width - chipW - 2 * pad;
    g.appendChild(svgEl("rect", { class: "pfk-bp-chip", x: chipX, y: y0 + pad / 2, width: chipW, height: h - pad, rx: font * 0.3, fill: m.colour }));
    m.chip.forEach((c, i) => g.appendChild(text("pfk-bp-chip-text", chipX + chipW / 2, base(i), c, { "text-anchor": "middle", fill: m.text_colour })));
    top.appendChild(g);
  }
  for (const [id, c] of Object.entries(metrics.channels || {})) {
    if (!c.full) continue;
    const edge = svg.querySelector(`g[id="${CSS.escape(edgeOnScreen(svg, id))}"]`);
    if (edge) edge.classList.add("pfk-full");
  }
  drawChannelGauges(svg, top, metrics.channels || {}, font);
}

// A large job's JobEdges are drawn as bundles (pyflowkit.render.subtask_grid): the id of the
// ExecutionEdge ee_<consumer vertex>_<subtask>_<input>_<producer subtask> is then drawn as
// je_<consumer vertex>_<input>; an id drawn as itself stays.
function edgeOnScreen(svg, id) {
  if (svg.querySelector(`g[id="${CSS.escape(id)}"]`)) return id;
  const m = /^ee_([0-9a-f]+)_\d+_(\d+)_\d+$/.exec(id);
  return m ? `je_${m[1]}_${m[2]}` : id;
}

// Buffer fill per input channel, on its edge near the consumer: one cell per exclusive buffer
// (the channel's credit), the queued ones filled (all filled: the full colour of its thick
// edge), or a bar filled to the share when there are more than 8; the counts in its tooltip. It
// slides along the edge to where it covers no text, subtask box or other gauge.
function drawChannelGauges(svg, top, channels, font) {
  const boxes = [];
  svg.querySelectorAll("g.graph text, g.node path, g.node polygon, g.node ellipse").forEach((t) => {
    if (t.closest("g.pfk-token, g.pfk-badge-svg") || (t.tagName === "text" && !t.textContent.trim())) return;
    const b = t.getBBox();
    if (b.width && b.height) boxes.push(b);
  });
  const hits = (a) => boxes.some((b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height);
  for (const [id, c] of Object.entries(channels)) {
    const path = svg.querySelector(`g[id="${CSS.escape(id)}"] path`);
    if (!path || !path.getTotalLength || !(c.capacity > 0)) continue;
    const cells = c.capacity <= 8 ? c.capacity : 0;
    const cellW = font * 0.75, h = font, pad = font * 0.14;
    const w = cells ? cells * cellW + (cells + 1) * pad : font * 2.6;
    const length = path.getTotalLength();
    const at = ([t, dy]) => {
      const q = path.getPointAtLength(length * t);
      return { x: q.x - w / 2, y: q.y - h / 2 + dy, width: w, height: h };
    };
    // on the edge near its consumer; else further along it; else just under or over it (a short
    // edge under its label)
    const along = [0.78, 0.7, 0.86, 0.62, 0.54, 0.46, 0.38, 0.3];
    const off = h / 2 + 2 * pad;
    const spots = [...along.map((t) => [t, 0]), ...along.map((t) => [t, off]), ...along.map((t) => [t, -off])].map(at);
    const clear = (b) => ({ x: b.x - pad, y: b.y - pad, width: b.width + 2 * pad, height: b.height + 2 * pad });
    const box = spots.find((b) => !hits(clear(b))) || spots.find((b) => !hits(b)) || spots[0];
    boxes.push(box);
    const full = c.queued >= c.capacity;
    const g = svgEl("g", { class: `pfk-gauge${full ? " pfk-gauge-full" : ""}`, "data-edge": id, "data-queued": c.queued, "data-capacity": c.capacity });
    const title = svgEl("title");
    title.textContent = `input channel: ${c.queued}/${c.capacity} buffers queued (${Math.round(100 * c.fill)} %), ${c.backlog} waiting upstream`;
    g.append(title, svgEl("rect", { class: "pfk-gauge-frame", x: box.x, y: box.y, width: w, height: h, rx: pad }));
    if (cells) {
      for (let k = 0; k < cells; k++) {
        const used = k < c.queued;
        g.appendChild(svgEl("rect", { class: used ? "pfk-gauge-used" : "pfk-gauge-free", x: box.x + pad + k * (cellW + pad), y: box.y + pad, width: cellW, height: h - 2 * pad }));
      }
    } else if (c.fill > 0) {
      g.appendChild(svgEl("rect", { class: "pfk-gauge-used", x: box.x + pad, y: box.y + pad, width: (w - 2 * pad) * Math.min(1, c.fill), height: h - 2 * pad }));
    }
    top.appendChild(g);
  }
}

// ---- graph pane: SVG laid out once, recoloured by state, click to select, zoom and pan ----------
// The drawing is scaled so that it fits the frame's height (and width) but never below 14 px text;
// then the reader zooms (+ − fit, Ctrl/⌘+wheel) and pans (drag) with controls outside the drawing.
function graphPane(model, root, opts) {
  const options = opts || {};
  const controls = el("div", "pfk-graph-controls");
  const frame = el("div", "pfk-graph-frame");
  const canvas = el("div", "pfk-graph-canvas");
  const legend = el("div", "pfk-legend");
  frame.appendChild(canvas);
  root.append(controls, frame, legend);
  let view = { x: 0, y: 0, z: 1 };
  let base = 1; // px per SVG unit at zoom 1
  // the smallest text on screen: 14 px times the Stepper's font scale (A− / A+)
  const minPx = () => MIN_FONT_PX * (options.stepper ? pfkFontScale(model) : 1);
  const applyView = () => {
    canvas.style.transform = `translate(${view.x}px, ${view.y}px) scale(${view.z})`;
  };
  // The zoom buttons' corner of the frame (px from its top right), when they lie over the frame.
  const controlsBox = () => {
    if (!options.stepper || !controls.offsetWidth) return null;
    return { w: controls.offsetWidth + 12, h: controls.offsetHeight + 8 };
  };
  // The frame height that shows the whole drawing with its smallest text at `px` (default: 14 px
  // times the font scale, A− / A+), or smaller where the pane's width does not allow that (never
  // under 14 px), below the zoom buttons when it does not fit beside them. A drawing wider than
  // the pane at 14 px scrolls sideways: the height it needs then, and the scrollbar's.
  const need = (px) => {
    const want = px || minPx();
    const svg = canvas.querySelector("svg");
    const vb = svg && svg.viewBox && svg.viewBox.baseVal;
    if (!vb || !vb.width || !vb.height) return 0;
    const units = minFontUnits(svg);
    const floor = (MIN_FONT_PX + 0.05) / units;
    const w = frame.clientWidth || 800;
    const ctl = controlsBox();
    if (vb.width * floor > w && shownWhole(svg)) {
      // a large job shown whole (see fit): as tall as it is at the pane's width beside the buttons
      const room = ctl ? w - ctl.w : w;
      return Math.ceil(vb.height * Math.min((want + 0.05) / units, room / vb.width)) + 4;
    }
    if (vb.width * floor > w) return Math.ceil(vb.height * floor) + 4 + 16;
    const room = ctl ? w - ctl.w : w;
    let scale = Math.max(Math.min((want + 0.05) / units, room / vb.width), floor);
    let below = 0;
    if (vb.width * scale > room) {
      scale = Math.max(Math.min((want + 0.05) / units, w / vb.width), floor);
      below = ctl ? ctl.h : 0;
    }
    return Math.ceil(vb.height * scale) + 4 + below;
  };
  // A large job (subtasks in grids, edges bundled: pyflowkit.render.subtask_grid) too wide for the
  // pane at 14 px text: the Stepper opens it at that readable scale, scrolled to the current
  // step's subject (follow), in a pane as tall as the whole drawing is at its width ("fit").
  const shownWhole = (svg) => !!options.stepper && !!svg.querySelector("g.edge.bundled");
  let home = 1; // px per SVG unit of the readable view (its zoom level: 100 %)
  const showScale = () => (zoomLabel.textContent = `${Math.round((100 * base * view.z) / home)}%`);
  // The whole drawing inside the frame (the "fit" button, at every size): beside the zoom
  // buttons or below them, whichever draws it larger; its text may be under 14 px (the scale shown).
  const wholeView = (svg, vb, w, h) => {
    const ctl = controlsBox();
    const plain = Math.min(w / vb.width, h / vb.height);
    const beside = ctl ? Math.min((w - ctl.w) / vb.width, h / vb.height) : plain;
    const below = ctl ? Math.min(w / vb.width, (h - ctl.h) / vb.height) : plain;
    base = Math.max(beside, below) * 0.999;
    const right = ctl && beside >= below ? ctl.w : 0;
    const x = Math.max(0, (w - right - vb.width * base) / 2);
    const y = ctl && beside < below ? ctl.h : 0;
    svg.style.width = `${Math.floor(vb.width * base)}px`;
    svg.style.height = `${Math.floor(vb.height * base)}px`;
    svg.style.marginRight = "";
    frame.scrollLeft = 0;
    frame.scrollTop = 0;
    view = { x, y, z: 1 };
    applyView();
    showScale();
  };
  let wholeChosen = false;
  const fit = (whole) => {
    const svg = canvas.querySelector("svg");
    if (!svg || !svg.viewBox || !svg.viewBox.baseVal) return;
    const vb = svg.viewBox.baseVal;
    if (!vb.width || !vb.height) return;
    const w = frame.clientWidth || 800;
    // a GraphView on its own (no Stepper) takes the height its drawing needs, at most its CSS
    // height: a wide, flat JobGraph no longer leaves the frame empty below and cut on the right
    const standalone = !options.stepper;
    const h = standalone ? GRAPH_VIEW_MAX_PX : frame.clientHeight || 300;
    // the largest scale that shows the whole drawing, never under 14 px text (at every font
    // scale: a larger font scale asks the Stepper for a taller pane, see need()); a drawing that
    // does not fit at 14 px scrolls (the frame's overflow), never cut
    const floor = (MIN_FONT_PX + 0.05) / minFontUnits(svg); // + a rounding margin
    base = Math.max(Math.min(w / vb.width, h / vb.height), floor);
    let x = Math.max(0, (w - vb.width * base) / 2);
    let y = 0;
    // the zoom buttons lie over the frame's top right corner: the drawing goes left of them, or
    // below them when it is too wide for that (a cluster's label is never under a button)
    const ctl = controlsBox();
    if (ctl && x < ctl.w) {
      // beside them, smaller if need be (never under 14 px text): a drawing pushed below the
      // buttons loses their height, and its bottom row would be cut at 14 px
      const beside = Math.max(Math.min((w - ctl.w) / vb.width, h / vb.height), floor);
      if (w - vb.width * base >= ctl.w) x = (w - vb.width * base - ctl.w) / 2;
      else if (w - vb.width * beside >= ctl.w) {
        base = beside;
        x = (w - vb.width * base - ctl.w) / 2;
      } else if (vb.width * floor <= w) {
        base = Math.max(Math.min(w / vb.width, (h - ctl.h) / vb.height), floor);
        x = Math.max(0, (w - vb.width * base) / 2);
        y = ctl.h;
      } else {
        // wider than the pane even at 14 px text: from its top left corner, the frame scrolls
        // (below the buttons it would hide the drawing)
        base = floor;
        x = 0;
      }
    }
    // whole px, rounded down: a drawing that fits never makes the frame scroll by a fraction; up
    // at the 14 px floor (a drawing that scrolls anyway: rounded down, a short one's text would be
    // drawn at 13.97 px)
    home = base;
    // (a large job shown whole by "fit" stays whole when the pane is laid out again)
    if (whole === true) wholeChosen = shownWhole(svg);
    if (whole || (wholeChosen && shownWhole(svg)))
      return wholeView(svg, vb, w, standalone ? frame.clientHeight || h : h);
    const px = base > floor + 1e-9 ? Math.floor : Math.ceil;
    svg.style.width = `${px(vb.width * base)}px`;
    svg.style.height = `${px(vb.height * base)}px`;
    // wider than the pane (it scrolls): room to scroll its right edge clear of the zoom buttons
    svg.style.marginRight = ctl && !y && vb.width * base > w ? `${ctl.w}px` : "";
    if (standalone) {
      const wide = vb.width * base > w + 0.5; // wider than the frame at 14 px text: it scrolls
      frame.style.height = `${Math.min(GRAPH_VIEW_MAX_PX, Math.ceil(vb.height * base) + 4 + (wide ? SCROLLBAR_PX : 0))}px`;
    }
    view = { x, y, z: 1 };
    applyView();
    showScale();
    follow();
  };
  // The current step's subject (narration.subject: the subtask or vertex the step is about) in
  // view: the frame scrolled the least that shows its box, clear of the zoom buttons' column.
  const follow = () => {
    const id = options.stepper && (model.get("narration") || {}).subject;
    const g = id && canvas.querySelector(`g[id="${CSS.escape(id)}"]`);
    canvas.querySelectorAll("g.pfk-subject").forEach((e) => e !== g && e.classList.remove("pfk-subject"));
    if (!g) return;
    g.classList.add("pfk-subject");
    const f = frame.getBoundingClientRect();
    const b = g.getBoundingClientRect();
    const ctl = controlsBox();
    const m = 6;
    const left = f.left + frame.clientLeft + m;
    const top = f.top + frame.clientTop + m;
    const right = f.left + frame.clientLeft + frame.clientWidth - (ctl ? ctl.w : 0) - m;
    const bottom = f.top + frame.clientTop + frame.clientHeight - m;
    const by = (lo, hi, a, z) => (a < lo ? a - lo : z > hi ? Math.min(z - hi, a - lo) : 0);
    frame.scrollLeft += by(left, right, b.left, b.right);
    frame.scrollTop += by(top, bottom, b.top, b.bottom);
  };

  const paintStates = () => {
    const states = model.get("states") || {};
    const colours = model.get("colours") || {};
    const textColours = model.get("text_colours") || {};
    canvas.querySelectorAll("g[data-pfk-state]").forEach((g) => {
      if (!(g.id in states)) {
        g.removeAttribute("data-pfk-state");
        g.classList.forEach((c) => c.startsWith("pfk-state-") && g.classList.remove(c));
        g.querySelectorAll(SVG_SHAPES).forEach((s) => s.style.removeProperty("fill"));
        g.querySelectorAll("text").forEach((s) => s.style.removeProperty("fill"));
      }
    });
    for (const [id, state] of Object.entries(states)) {
      const g = canvas.querySelector(`g[id="${CSS.escape(id)}"]`);
      if (!g) continue;
      const old = g.getAttribute("data-pfk-state");
      if (old) g.classList.remove(`pfk-state-${old}`);
      g.setAttribute("data-pfk-state", state);
      g.classList.add(`pfk-state-${state}`);
      // (a state without a colour: the theme's box and text)
      const fill = colours[state] || "var(--pfk-box)";
      const text = textColours[state] || (colours[state] ? "#ffffff" : "var(--pfk-fg)");
      g.querySelectorAll(SVG_SHAPES).forEach((s) => (s.style.fill = fill));
      g.querySelectorAll("text").forEach((s) => (s.style.fill = text));
    }
    const items = STATE_ORDER.filter((name) => name in colours).map((name) => {
      const item = el("span", `pfk-legend-item pfk-state-${name}`, name);
      item.style.background = colours[name];
      item.style.color = textColours[name] || "#ffffff";
      return item;
    });
    const metrics = model.get("show_metrics"); // its keys take the room of the barrier's words
    const marks = [
      ["pfk-legend-barrier", metrics ? "● barrier" : "● barrier (+k records ahead)", "a CheckpointBarrier in its channel: +k records ahead of it"],
      ["pfk-legend-blocked", "╍ blocked", "a channel blocked by barrier alignment"],
      ...(metrics ? [
        ["pfk-legend-full", "━ full", "every exclusive buffer of the input channel holds data"],
        ["pfk-legend-gauge", "▮▯ buffers", "an input channel's exclusive buffers (its credit), the queued ones filled"],
      ] : []),
    ].map(([cls, text, title]) => Object.assign(el("span", `pfk-legend-mark ${cls}`, text), { title }));
    legend.replaceChildren(...items, ...(options.stepper ? marks : []));
  };

  const paintEdges = () => {
    const marks = model.get("edge_marks") || {};
    canvas.querySelectorAll("g.pfk-barrier, g.pfk-blocked").forEach((g) => {
      g.classList.remove("pfk-barrier", "pfk-blocked");
    });
    const svg = canvas.querySelector("svg");
    if (!svg) return;
    const shown = {}; // a bundle: blocked when one of its channels is
    for (const [id, mark] of Object.entries(marks)) {
      const to = edgeOnScreen(svg, id);
      if (shown[to] !== "blocked") shown[to] = mark;
    }
    for (const [id, mark] of Object.entries(shown)) {
      const g = canvas.querySelector(`g[id="${CSS.escape(id)}"]`);
      if (g) g.classList.add(`pfk-${mark}`);
    }
  };

  // Text and token boxes already drawn (SVG units of g.graph), for placing labels without overlap.
  const obstacles = (svg) => {
    const boxes = [];
    svg.querySelectorAll("g.graph text, g.pfk-token circle, g.pfk-gauge rect.pfk-gauge-frame").forEach((t) => {
      try {
        const b = t.getBBox();
        const m = t.transform && t.transform.baseVal.numberOfItems ? t.transform.baseVal.consolidate().matrix : null;
        if (b.width && b.height) boxes.push(m ? { x: b.x + m.e, y: b.y + m.f, width: b.width, height: b.height } : b);
      } catch (e) { /* not rendered */ }
    });
    return boxes;
  };
  const overlaps = (a, boxes) => boxes.some((b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height);
  // Put `text` (anchored at its start) at the first of `spots` (dx, dy from p) whose box is free.
  const placeLabel = (text, p, spots, boxes) => {
    for (const [dx, dy] of spots) {
      text.setAttribute("x", p.x + dx);
      text.setAttribute("y", p.y + dy);
      const b = text.getBBox();
      if (!overlaps(b, boxes)) return boxes.push(b), true;
    }
    text.setAttribute("x", p.x + spots[0][0]);
    text.setAttribute("y", p.y + spots[0][1]);
    return boxes.push(text.getBBox()), false;
  };

  // A barrier is a token on its edge: at `pos` along the path (0 producer, 1 consumer). Its text is
  // as large as the drawing's smallest text (so at least 14 px on screen); the "+k records ahead"
  // label goes where it overlaps no other text (edge labels, other tokens' labels).
  const paintTokens = () => {
    const svg = canvas.querySelector("svg");
    if (!svg) return;
    svg.querySelectorAll("g.pfk-token").forEach((t) => t.remove());
    svg.querySelectorAll("text.pfk-label-moved").forEach((t) => (t.removeAttribute("transform"), t.classList.remove("pfk-label-moved")));
    const tokens = model.get("edge_tokens") || {};
    const top = svg.querySelector("g.graph") || svg;
    const font = minFontUnits(svg);
    const r = Math.max(9, font * 0.8);
    const boxes = obstacles(svg);
    // a bundle's channels: one token per checkpoint, where its furthest-behind barrier is, with
    // the records ahead of it summed over the channels
    const onScreen = {};
    for (const [id, list] of Object.entries(tokens)) {
      const to = edgeOnScreen(svg, id);
      const merged = onScreen[to] || (onScreen[to] = []);
      for (const tok of list) {
        const same = to !== id && merged.find((t) => t.id === tok.id);
        if (same) (same.pos = Math.min(same.pos, tok.pos)), (same.ahead += tok.ahead), (same.channels += 1);
        else merged.push(to === id ? tok : { ...tok, channels: 1 });
      }
    }
    for (const [id, list] of Object.entries(onScreen)) {
      const path = svg.querySelector(`g[id="${CSS.escape(id)}"] path`);
      if (!path || !path.getTotalLength) continue;
      const length = path.getTotalLength();
      for (const tok of list) {
        // on the path at `pos`, or slid a little along it when an edge label is in the way
        let p = path.getPointAtLength(length * tok.pos);
        const circleAt = (q) => ({ x: q.x - r, y: q.y - r, width: 2 * r, height: 2 * r });
        let free = !overlaps(circleAt(p), boxes);
        for (let k = 1; !free && k <= 30; k++) { // nearest free spot first, either way
          for (const at of [tok.pos + 0.03 * k, tok.pos - 0.03 * k]) {
            if (at < 0.03 || at > 0.97) continue;
            const q = path.getPointAtLength(length * at);
            if (!overlaps(circleAt(q), boxes)) {
              p = q;
              free = true;
              break;
            }
          }
        }
        if (!free) { // a short edge under its label: move the edge's label below the token
          const c = circleAt(p);
          svg.querySelectorAll("g.edge text").forEach((t) => {
            const b = t.getBBox();
            if (!overlaps(b, [c])) return;
            t.setAttribute("transform", `translate(0, ${c.y + c.height + 2 - b.y})`);
            t.classList.add("pfk-label-moved");
          });
          boxes.splice(0, boxes.length, ...obstacles(svg));
        }
        const g = svgEl("g", { class: "pfk-token", "data-edge": id, "data-checkpoint": tok.id, "data-pos": tok.pos });
        const title = svgEl("title");
        title.textContent = tok.channels
          ? `CheckpointBarrier ${tok.id}: in ${tok.channels} channel(s) of this bundle, ${tok.ahead} record(s) ahead of it in them`
          : `CheckpointBarrier ${tok.id}: ${tok.ahead} record(s) ahead of it in this channel`;
        g.append(title, svgEl("circle", { cx: p.x, cy: p.y, r }));
        const label = svgEl("text", { x: p.x, y: p.y + font * 0.35, "text-anchor": "middle", "font-size": font });
        label.textContent = String(tok.id);
        g.appendChild(label);
        top.appendChild(g);
        boxes.push({ x: p.x - r, y: p.y - r, width: 2 * r, height: 2 * r });
        if (tok.ahead > 0) {
          const ahead = svgEl("text", { "font-size": font, class: "pfk-token-ahead" });
          ahead.textContent = `+${tok.ahead}`;
          g.appendChild(ahead);
          const d = r + 3;
          const w = font * 0.6 * ahead.textContent.length;
          const spots = [[d, -d], [d, d + font * 0.7], [-d - w, -d], [-d - w, d + font * 0.7], [d, font * 0.35], [-d - w, font * 0.35], [d + w, -d - font], [-d - 2 * w, d + 1.5 * font]];
          placeLabel(ahead, p, spots, boxes);
        }
      }
    }
  };

  // A subtask's phase in the newest checkpoint, as a badge under its box (text as large as the
  // drawing's smallest text, so at least 14 px on screen).
  const paintBadges = () => {
    const svg = canvas.querySelector("svg");
    if (!svg) return;
    svg.querySelectorAll("g.pfk-badge-svg").forEach((t) => t.remove());
    const badges = model.get("badges") || {};
    const top = svg.querySelector("g.graph") || svg;
    const text = { aligning: "aligning", async: "async part", acknowledged: "acked ✓" };
    const font = minFontUnits(svg);
    const boxes = obstacles(svg); // the drawing's text: a badge goes where it covers none
    for (const [id, phase] of Object.entries(badges)) {
      const node = svg.querySelector(`g[id="${CSS.escape(id)}"]`);
      if (!node) continue;
      const shape = node.querySelector("path, polygon, ellipse");
      if (!shape) continue;
      const box = shape.getBBox();
      const g = svgEl("g", { class: `pfk-badge-svg pfk-phase-${phase}`, "data-id": id });
      const label = text[phase] || phase;
      const h = font * 1.35;
      const w = font * 0.62 * label.length + font;
      const x = box.x + box.width - w + 4;
      // on the box's top right edge; else its bottom right edge, else just above or below it
      const spots = [box.y - h * 0.6, box.y + box.height - h * 0.4, box.y - h - 1, box.y + box.height + 1];
      const y = spots.find((top) => !overlaps({ x, y: top, width: w, height: h }, boxes)) ?? spots[0];
      boxes.push({ x, y, width: w, height: h });
      g.append(
        svgEl("rect", { x, y, width: w, height: h, rx: h / 2 }),
        Object.assign(svgEl("text", { x: x + w / 2, y: y + h * 0.72, "text-anchor": "middle", "font-size": font }), { textContent: label }),
      );
      top.appendChild(g);
    }
  };

  const paintMetrics = () => {
    const svg = canvas.querySelector("svg");
    if (svg) drawMetricStrips(svg, model.get("metrics"), model.get("show_metrics"));
    const toggle = root.closest(".pfk-stepper")?.querySelector(".pfk-metrics-btn");
    if (toggle) toggle.classList.toggle("pfk-on", !!model.get("show_metrics"));
  };

  const paintSelection = () => {
    canvas.querySelectorAll("g.pfk-selected").forEach((g) => g.classList.remove("pfk-selected"));
    const id = model.get("selected");
    if (!id) return;
    const g = canvas.querySelector(`g[id="${CSS.escape(id)}"]`);
    if (g) g.classList.add("pfk-selected");
  };

  const drawSvg = () => {
    canvas.innerHTML = model.get("svg") || "";
    const svg = canvas.querySelector("svg");
    if (svg) svg.removeAttribute("width"), svg.removeAttribute("height"), svg.setAttribute("class", "pfk-svg");
    paintStates();
    paintEdges();
    paintSelection();
    requestAnimationFrame(() => (graphTighten(canvas.querySelector("svg")), fit(), paintMetrics(), paintTokens(), paintBadges()));
  };

  // drag pans, a click without movement selects a subtask
  let drag = null;
  frame.addEventListener("pointerdown", (ev) => {
    if (ev.button !== 0 && ev.button !== 1) return;
    drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y, moved: false };
  });
  frame.addEventListener("pointermove", (ev) => {
    if (!drag) return;
    const dx = ev.clientX - drag.x;
    const dy = ev.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 5) return;
    if (!drag.moved) frame.setPointerCapture(ev.pointerId);
    drag.moved = true;
    view = { ...view, x: drag.vx + dx, y: drag.vy + dy };
    applyView();
  });
  frame.addEventListener("pointerup", (ev) => {
    const wasDrag = drag && drag.moved;
    drag = null;
    if (wasDrag) return;
    const g = ev.target.closest && ev.target.closest("g.node, g.cluster");
    if (!g || !g.id) return;
    model.set("selected", g.id);
    model.save_changes();
  });
  frame.addEventListener("wheel", (ev) => {
    if (!ev.ctrlKey && !ev.metaKey) return; // a plain wheel scrolls the notebook
    ev.preventDefault();
    zoomBy(ev.deltaY < 0 ? 1.15 : 1 / 1.15);
  });
  const zoomLabel = el("span", "pfk-zoom-level", "100%");
  const zoomBy = (f) => {
    wholeChosen = false; // (laid out again: the readable view)
    view = { ...view, z: Math.min(6, Math.max(0.3, view.z * f)) };
    applyView();
    showScale();
  };
  for (const [label, title, f] of [["+", "zoom in", 1.25], ["−", "zoom out", 0.8], ["fit", "the whole graph in the pane (100 %: text at 14 px)", 0]]) {
    const b = el("button", "pfk-btn pfk-zoom-btn", label);
    b.title = title;
    b.onclick = () => (f ? zoomBy(f) : fit(true));
    controls.appendChild(b);
  }
  const hint = options.stepper
    ? "drag to pan · Ctrl+wheel zooms · click a subtask to select it · colours: the JobMaster's view"
    : "drag to pan · Ctrl+wheel zooms · click an element to select it";
  controls.append(zoomLabel);

  frame.title = hint;

  const handlers = {
    "change:svg": drawSvg, "change:states": paintStates, "change:colours": paintStates,
    "change:edge_marks": paintEdges, "change:selected": paintSelection,
    "change:edge_tokens": paintTokens, "change:badges": paintBadges,
    "change:metrics": paintMetrics, "change:show_metrics": () => (paintStates(), paintMetrics()),
  };
  if (options.stepper) {
    handlers["change:font_scale"] = () => (fit(), paintTokens(), paintBadges());
    handlers["change:narration"] = () => requestAnimationFrame(follow);
  }
  if (options.timed) for (const [ev, f] of Object.entries(handlers)) handlers[ev] = options.timed(`graph ${ev}`, f);
  for (const [ev, f] of Object.entries(handlers)) model.on(ev, f);
  const resize = new ResizeObserver(() => fit());
  resize.observe(frame);
  drawSvg();
  const cleanup = () => {
    resize.disconnect();
    for (const [ev, f] of Object.entries(handlers)) model.off(ev, f);
  };
  cleanup.need = need;
  return cleanup;
}

// Graphviz pads its drawing by 4 units on each side: the viewBox cut to the clusters', nodes' and
// edges' box left and right (a wide graph then fits a projector's pane at 14 px text, its right
// cluster's border not cut), its height kept (badges may sit above the top box).
function graphTighten(svg) {
  const graph = svg && svg.querySelector("g.graph");
  const vb = svg && svg.viewBox && svg.viewBox.baseVal;
  if (!graph || !vb || !vb.width || svg.dataset.pfkTight) return;
  let left = Infinity, right = -Infinity;
  for (const g of graph.querySelectorAll(":scope > g.cluster, :scope > g.node, :scope > g.edge")) {
    const b = g.getBBox();
    if (!b.width) continue;
    left = Math.min(left, b.x);
    right = Math.max(right, b.x + b.width);
  }
  if (!Number.isFinite(left)) return; // not rendered yet
  const m = graph.transform.baseVal.numberOfItems ? graph.transform.baseVal.consolidate().matrix : { e: 0 };
  const x = Math.max(vb.x, left + m.e - 1.5);
  const w = Math.min(vb.x + vb.width, right + m.e + 1.5) - x;
  if (w > 0 && w < vb.width) svg.setAttribute("viewBox", `${x} ${vb.y} ${w} ${vb.height}`);
  svg.dataset.pfkTight = "1";
}

// The visible notebook area around a widget: JupyterLab 4's and Notebook 7's windowed notebook
// panel, an older Lab's notebook, classic Notebook's site; else the first scrolling ancestor that
// is more than a wrapper of the widget (taller than it). null: the window.
function notebookArea(root) {
  const known = root.closest(".jp-WindowedPanel-outer, .jp-Notebook, #site");
  if (known) return known;
  const own = root.getBoundingClientRect().height;
  for (let e = root.parentElement; e; e = e.parentElement) {
    const oy = getComputedStyle(e).overflowY;
    if ((oy === "auto" || oy === "scroll") && e.clientHeight > own + 40) return e;
  }
  return null;
}

// ---- tables -------------------------------------------------------------------------------------
function table(rows, columns, cls, headers, titles) {
  const t = el("table", `pfk-table ${cls || ""}`);
  const cols = columns || (rows.length ? Object.keys(rows[0]) : []);
  const head = el("tr");
  cols.forEach((c) => head.appendChild(el("th", "", (headers && headers[c]) || c)));
  t.appendChild(head);
  for (const row of rows) {
    const tr = el("tr");
    for (const c of cols) {
      const v = row[c];
      const cls = c === "state" ? `pfk-state-${v}` : c === "status" ? `pfk-ck-status pfk-ck-status-${v}` : "";
      const td = el("td", cls, v === null || v === undefined ? "" : String(v));
      if (titles && titles[c] && row[titles[c]]) td.title = String(row[titles[c]]);
      tr.appendChild(td);
    }
    t.appendChild(tr);
  }
  return t;
}

// ---- Stepper ------------------------------------------------------------------------------------
const TABS = [
  ["sequence", "Sequence diagram"],
  ["tasks", "Tasks"],
  ["checkpoints", "Checkpoints"],
  ["exceptions", "Exceptions"],
  ["timeline", "Timeline"],
  ["slots", "Slots"],
  ["state", "Keyed state"],
  ["log", "Event log"],
];

// Step latency, end to end in the browser: a command's click (performance mark "pfk-click"), the
// kernel's answer (the first change event after it), the panes redrawn (the model's "change" event,
// after every "change:<trait>"), and the next frame painted: a "pfk-step" performance measure, its
// detail the phases and the time of each pane's handler (benchmarks/bench_step_latency.py reads them).
function stepClock(model) {
  let t0 = 0;
  let answer = 0;
  let work = {};
  const timed = (name, f) => (...args) => {
    if (!t0) return f(...args);
    const t = performance.now();
    if (!answer) answer = t;
    try {
      return f(...args);
    } finally {
      work[name] = (work[name] || 0) + performance.now() - t;
    }
  };
  const onChange = () => {
    if (!t0 || !answer) return;
    const start = t0;
    const drawn = performance.now();
    const detail = { answer: answer - start, drawn: drawn - start, work };
    t0 = answer = 0;
    work = {};
    requestAnimationFrame(() => setTimeout(() => {
      const end = performance.now();
      performance.measure("pfk-step", { start, end, detail: { ...detail, painted: end - start } });
    }, 0));
  };
  model.on("change", onChange);
  return {
    timed,
    click: () => {
      t0 = performance.now();
      answer = 0;
      work = {};
      performance.mark("pfk-click");
    },
    stop: () => model.off("change", onChange),
  };
}

function renderStepper(model, root) {
  root.classList.add("pfk-stepper");
  root.tabIndex = 0;
  const clock = stepClock(model);
  // a command from this widget: show the current step's arrows when the answer arrives
  let follow = false;
  const send = (msg) => {
    clock.click();
    follow = true;
    if (panes.sequence) panes.sequence.dataset.follow = "1";
    const width = cleanupSeq.widthNow(); // the sequence pane's width rides with the command
    model.send(width ? { ...msg, seq_width: width } : msg);
  };
  const applyLayout = () => {
    const choice = model.get("layout_mode") || "auto";
    const width = root.getBoundingClientRect().width || window.innerWidth;
    const projector = choice === "projector" || (choice === "auto" && width < PROJECTOR_BELOW);
    root.classList.toggle("pfk-projector", projector);
    root.classList.toggle("pfk-desk", !projector);
  };
  applyLayout();

  // status line: labelled JobStatus badge, step, simulated time, message (one line, full in title)
  const head = el("div", "pfk-head");
  const statusLabel = el("span", "pfk-badge-label", "JobStatus");
  const status = el("span", "pfk-badge");
  const stepNo = el("span", "pfk-step-no");
  const msg = el("div", "pfk-message");
  // the restart / restore banner lies over the raw log line (nothing moves when it appears, and
  // it covers no subtask of the graph)
  const msgSlot = el("div", "pfk-message-slot");
  const banner = el("div", "pfk-banner");
  msgSlot.append(msg, banner);
  head.append(statusLabel, status, stepNo, msgSlot);

  const bar = el("div", "pfk-toolbar");
  const button = (label, cls, onclick, title) => {
    const b = el("button", `pfk-btn ${cls}`, label);
    b.onclick = onclick;
    if (title) b.title = title;
    bar.appendChild(b);
    return b;
  };
  let playing = null;
  const stopPlay = () => {
    if (playing) clearInterval(playing);
    playing = null;
    playBtn.textContent = "▶ Play";
  };
  button("Submit", "pfk-submit", () => send({ cmd: "submit" }), "MiniCluster.submitJob: a fresh run");
  button("Step", "pfk-step", () => send({ cmd: "step", n: 1 }), "deliver one message (space)");
  const nInput = el("input", "pfk-n");
  nInput.type = "number";
  nInput.min = "1";
  nInput.value = "10";
  nInput.title = "N";
  button("Step ×N", "pfk-step-n", () => send({ cmd: "step", n: Number(nInput.value) || 1 }));
  bar.appendChild(nInput);
  const playBtn = button("▶ Play", "pfk-play", () => {
    if (playing) return stopPlay();
    playBtn.textContent = "❚❚ Pause";
    playing = setInterval(() => {
      if (model.get("finished")) return stopPlay();
      send({ cmd: "step", n: 1 });
    }, Number(speed.value));
  });
  const speed = el("input", "pfk-speed");
  speed.type = "range";
  speed.min = "50";
  speed.max = "1000";
  speed.value = "300";
  speed.title = "ms per step";
  speed.onchange = () => playing && (stopPlay(), playBtn.click());
  bar.appendChild(speed);
  button("◀ Back", "pfk-back", () => send({ cmd: "back" }), "rewind one step");
  const runTo = el("select", "pfk-run-to");
  for (const [v, label] of [["state", "next state change"], ["job", "next JobStatus change"], ["checkpoint", "next completed checkpoint"], ["end", "job end"]]) {
    const o = el("option", "", label);
    o.value = v;
    runTo.appendChild(o);
  }
  button("Run to", "pfk-run-to-btn", () => send({ cmd: "run_to", target: runTo.value }));
  bar.appendChild(runTo);
  button("Checkpoint", "pfk-checkpoint", () => send({ cmd: "checkpoint" }), "CheckpointCoordinator.triggerCheckpoint");
  button("Savepoint", "pfk-savepoint", () => send({ cmd: "savepoint" }), "JobMaster.triggerSavepoint");
  button("Fail task", "pfk-fail-task", () => send({ cmd: "fail_task" }), "fail the selected subtask");
  const tmSelect = el("select", "pfk-tm");
  const fillTms = () => {
    tmSelect.replaceChildren();
    for (let i = 0; i < model.get("task_managers"); i++) {
      const o = el("option", "", `TaskExecutor-${i}`);
      o.value = String(i);
      tmSelect.appendChild(o);
    }
  };
  fillTms();
  button("Fail TM", "pfk-fail-tm", () => send({ cmd: "fail_tm", index: Number(tmSelect.value) }));
  bar.appendChild(tmSelect);
  button("Cancel", "pfk-cancel", () => send({ cmd: "cancel" }), "JobMaster.cancel");
  const seed = el("input", "pfk-seed");
  seed.type = "number";
  seed.value = String(model.get("seed"));
  seed.title = "seed";
  button("Reset", "pfk-reset", () => send({ cmd: "reset", seed: Number(seed.value) || 0 }), "a fresh run with this seed");
  bar.appendChild(seed);
  // Metrics: records, watermarks, buffers and back pressure in every subtask box (a new layout)
  button("Metrics", "pfk-metrics-btn", () => (model.set("show_metrics", !model.get("show_metrics")), model.save_changes()), "numRecordsIn/Out, watermarks, buffers and back pressure per subtask, as Flink's web UI shows them");
  const presentBtn = button("Present", "pfk-present", () => (presenting ? leavePresenter() : enterPresenter(true)), "presenter mode: the whole window, large text (Escape leaves)");
  const scrubber = pfkScrubber(model, send);

  // the current step in plain words: a large "sender → receiver", one sentence, the method, why
  const story = el("div", "pfk-narration");
  const caption = el("span", "pfk-caption");
  const sentence = el("span", "pfk-sentence");
  const method = el("span", "pfk-method");
  const why = el("span", "pfk-why");
  const line1 = el("div", "pfk-narration-line");
  const line2 = el("div", "pfk-narration-line pfk-narration-why");
  // (the spaces: where a presenter's flowing narration may wrap; a flex line ignores them)
  line1.append(caption, " ", sentence);
  line2.append(method, " ", why);
  story.append(line1, " ", line2);
  root.append(head, bar, story);
  const drawNarration = () => {
    const n = model.get("narration") || {};
    caption.textContent = n.caption || "";
    sentence.textContent = n.sentence || "Press Step: each step delivers one message between Flink's components.";
    method.textContent = n.method || "";
    why.textContent = n.why ? `why: ${n.why}` : "";
    for (const part of [caption, sentence, why]) part.title = part.textContent;
    flowStory();
  };
  // (a width under this is not a laid-out Stepper: a page between two renderings, a hidden cell)
  const LAID_OUT_PX = 300;
  // Not presenting (presenter mode has its own flow), the narration flows over the lines it needs,
  // nothing cut to "…" (a hall cannot hover for the title): two lines at least, at every font
  // scale as many as its text takes (no empty third line where two hold it); at one scale its
  // height only grows (to the most lines seen), so the panes below move only for a longer
  // sentence than any before.
  let storyScale = 0;
  let storyLines = 0;
  const flowStory = () => {
    const scale = presenting ? 0 : pfkFontScale(model);
    if (story.clientWidth < LAID_OUT_PX) return;
    if (scale !== storyScale) storyLines = 0;
    storyScale = scale;
    story.classList.toggle("pfk-flow", !presenting);
    story.style.removeProperty("height");
    if (presenting) return;
    const lines = Math.ceil(story.getBoundingClientRect().height / (24 * (story.currentCSSZoom || 1)) - 0.1);
    storyLines = Math.max(storyLines, lines, 2);
    story.style.height = `${storyLines * 24}px`;
  };
  // The status line's log text, over two lines at every font scale (nothing moves from one step
  // to the next): the whole line where it holds in them, else the kernel's abridged line
  // (message_short: the subject and what happened, abridge_log_line), else that line's first
  // words and "…"; the whole line in the title and the Event log.
  const HEAD_LINES = 2;
  const fitHead = () => {
    msgSlot.style.removeProperty("height");
    banner.style.removeProperty("line-height");
    const full = model.get("message") || "";
    msg.textContent = full;
    if (presenting) return; // (hidden there: the narration says the step)
    const lineH = parseFloat(getComputedStyle(msg).lineHeight) || 15;
    msgSlot.style.height = `${HEAD_LINES * lineH}px`;
    banner.style.lineHeight = `${HEAD_LINES * lineH - 2}px`; // (its one line in the middle)
    if (msg.clientWidth < LAID_OUT_PX) return;
    const fits = () => msg.scrollHeight <= HEAD_LINES * lineH + 1;
    if (fits()) return;
    const short = model.get("message_short") || full;
    msg.textContent = short;
    if (fits()) return;
    const words = short.split(" ");
    let lo = 1;
    let hi = words.length - 1; // the most words that hold with " …" (a binary search: few layouts)
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      msg.textContent = `${words.slice(0, mid).join(" ")} …`;
      if (fits()) lo = mid;
      else hi = mid - 1;
    }
    msg.textContent = `${words.slice(0, lo).join(" ")} …`;
  };

  const graphBox = el("div", "pfk-pane pfk-graph-pane");
  root.appendChild(graphBox);
  const cleanupGraph = graphPane(model, graphBox, { stepper: true, timed: clock.timed });

  const tabBar = el("div", "pfk-tabs");
  const body = el("div", "pfk-tab-body");
  root.append(tabBar, body);
  const panes = {};
  const tabButtons = {};
  for (const [name, label] of TABS) {
    const b = el("button", `pfk-tab pfk-tab-${name}`, label);
    b.dataset.tab = name;
    b.onclick = () => {
      model.set("tab", name);
      model.save_changes();
      showTab();
    };
    tabBar.appendChild(b);
    tabButtons[name] = b;
    panes[name] = el("div", `pfk-tabpane pfk-${name === "checkpoints" ? "checkpoint" : name}-pane`);
    body.appendChild(panes[name]);
  }
  // A hidden tab's pane is redrawn when it is shown, not at every step (a step's answer then
  // rebuilds only what is on screen: the step latency stays under 100 ms).
  const dirty = new Set();
  const lazy = (name, draw) => () => {
    if (model.get("tab") === name) return draw();
    dirty.add(name);
  };
  const showTab = () => {
    const current = model.get("tab") in panes ? model.get("tab") : "sequence";
    for (const [name, pane] of Object.entries(panes)) {
      pane.classList.toggle("pfk-active", name === current);
      tabButtons[name].classList.toggle("pfk-active", name === current);
    }
    if (dirty.delete(current)) lazyDraw[current]();
  };
  const cleanupSeq = seqPane(model, panes.sequence, clock.timed);
  // lecture tools (lecture_tools.js): the theme, A− / A+ (narration zoomed; the graph and the
  // sequence pane scale their own text), the scrubber above
  const cleanupTheme = pfkTheme(model, root);
  const cleanupFont = pfkFontControls(model, bar, (s) => {
    // (the narration, already the largest text, grows half as fast: at 2 it wraps to 3 lines, not 5)
    story.style.zoom = s === 1 ? "" : String(1 + (s - 1) / 2);
    root.dataset.pfkFontScale = String(s);
    requestAnimationFrame(() => (compactChrome(), flowStory(), (fitted = null), fitArea()));
  });
  bar.appendChild(scrubber); // the toolbar's last line: what the buttons leave of it
  // Compact chrome at font scale 1.5 and above: the toolbar keeps a presenter's buttons, on one
  // line, and the scrubber moves up into the status line, so that the graph and the sequence
  // diagram keep the height the larger text needs (at 2, 1280 x 800: three sequence rows).
  const compactChrome = () => {
    const on = pfkFontScale(model) >= 1.5;
    root.classList.toggle("pfk-compact", on);
    if (on && scrubber.parentNode !== head) head.appendChild(scrubber);
    if (!on && scrubber.parentNode !== bar) bar.appendChild(scrubber);
    drawFailures(); // the banner's sentence for its new width
  };

  const drawHead = () => {
    const s = model.get("job_status") || "NOT SUBMITTED";
    status.textContent = s;
    status.className = `pfk-badge pfk-state-${s}`;
    status.style.background = (model.get("colours") || {})[s] || "#8c8c8c";
    status.style.color = (model.get("text_colours") || {})[s] || "#ffffff";
    stepNo.textContent = `step ${model.get("step_count")}`;
    msg.title = model.get("message");
    fitHead();
  };
  const drawTasks = () => {
    const rows = model.get("tasks") || [];
    const t = table(
      rows,
      ["task", "state", "task_executor_says", "attempt", "task_executor", "slot", "records_in", "records_out"],
      "pfk-tasks",
      { task: "subtask", task_executor_says: "TaskExecutor says", task_executor: "TaskExecutor", records_in: "in", records_out: "out" },
      { task: "name" },
    );
    const note = el("div", "pfk-note", "The graph and the state column show the JobMaster's view; a TaskExecutor reports a change with updateTaskExecutionState, so a task can be RUNNING there a few steps before the JobMaster knows.");
    panes.tasks.replaceChildren(note, t);
  };
  const drawSlots = () => {
    panes.slots.replaceChildren(table(model.get("slots") || [], ["task_executor", "slot", "alive", "state", "tasks"], "pfk-slots"));
  };
  const drawCheckpoints = () => {
    const ck = model.get("checkpoints") || {};
    const parts = [];
    if (!ck.available) {
      parts.push(el("div", "pfk-note", ck.note || "no checkpoints"));
      return panes.checkpoints.replaceChildren(...parts);
    }
    const counts = ck.counts || {};
    parts.push(el("div", "pfk-ck-counts", `completed ${counts.COMPLETED || 0} · in progress ${counts.IN_PROGRESS || 0} · failed ${counts.FAILED || 0}`));
    for (const row of ck.pending || []) {
      const p = el("progress", "pfk-ck-progress");
      p.max = Math.max(1, row.total);
      p.value = row.acks;
      const kind = row.is_savepoint ? "savepoint" : "checkpoint";
      const line = el("div", "pfk-ck-line", `${kind} ${row.id}: ${row.acks}/${row.total} acks `);
      line.dataset.checkpointId = String(row.id);
      line.appendChild(p);
      parts.push(line);
    }
    const box = ck.box;
    if (box) {
      const done = box.status !== "IN_PROGRESS";
      const b = el("div", `pfk-ck-box pfk-ck-box-${box.status}`);
      b.dataset.checkpointId = String(box.id);
      b.appendChild(el("div", "pfk-ck-box-title", done ? `CompletedCheckpoint ${box.id} (${box.status})` : `PendingCheckpoint ${box.id}: ${box.acks}/${box.total} acknowledged`));
      const cells = el("div", "pfk-ck-cells");
      for (const c of box.cells) {
        const cell = el("span", `pfk-ck-cell pfk-phase-${c.phase}`, c.task);
        cell.title = `${c.task}: ${c.phase}`;
        cells.appendChild(cell);
      }
      b.appendChild(cells);
      parts.push(b);
      if ((ck.subtasks || []).length) {
        parts.push(el("div", "pfk-pane-title", `Checkpoint ${box.id} per subtask (as Flink's web UI: Checkpoints → Details)`));
        parts.push(table(ck.subtasks, ["subtask", "status", "ack_time", "sync_ms", "async_ms", "alignment_ms", "state_bytes"], "pfk-ck-subtasks", { ack_time: "ack (ms)", sync_ms: "sync ms", async_ms: "async ms", alignment_ms: "alignment ms", state_bytes: "state bytes" }));
      }
    }
    const history = ck.history || [];
    if (!history.length) parts.push(el("div", "pfk-note", "no checkpoint triggered yet"));
    else {
      const t = table(history, ck.columns, "pfk-ck-history");
      t.querySelectorAll("tr").forEach((tr, i) => {
        if (i === 0) return;
        const row = history[i - 1];
        tr.dataset.checkpointId = String(row.id);
        tr.classList.add(`pfk-ck-${row.status}`);
      });
      parts.push(el("div", "pfk-pane-title", "History (newest first)"), t);
    }
    panes.checkpoints.replaceChildren(...parts);
  };
  const drawFailures = () => {
    const f = model.get("failures") || {};
    const items = [];
    const bannerParts = [];
    if (f.restart) {  // one short line a hall reads without hovering; the details in its title
      bannerParts.push(f.restart.banner || `RESTARTING: restart in ${f.restart.remaining} ms`);
    } else if (f.restored) {  // a pending restart makes an earlier restore old news
      bannerParts.push(f.restored.checkpoint !== null && f.restored.checkpoint !== undefined
        ? `restored from checkpoint ${f.restored.checkpoint} at step ${f.restored.step}`
        : `restarted at step ${f.restored.step} with empty state: no completed checkpoint to restore`);
    }
    banner.textContent = bannerParts.join("  ·  ");
    banner.title = f.restart ? `${f.restart.text} — ${f.restart.strategy}` : banner.textContent;
    banner.classList.toggle("pfk-banner-on", bannerParts.length > 0);
    // a status line too narrow for the whole sentence (compact chrome) shows its first clause
    // whole, never cut to "…" (the rest in its title)
    if (bannerParts.length && root.classList.contains("pfk-compact") && banner.scrollWidth > banner.clientWidth + 1)
      banner.textContent = banner.textContent.split(/ · |: /)[0];
    const list = f.exceptions || [];
    tabButtons.exceptions.textContent = list.length ? `Exceptions (${list.length})` : "Exceptions";
    tabButtons.exceptions.classList.toggle("pfk-tab-alert", list.length > 0);
    if (!list.length) items.push(el("div", "pfk-note", "no exception so far (select a subtask in the graph and press Fail task)"));
    list.forEach((x, i) => {
      const box = el("div", `pfk-exception${i === 0 ? " pfk-exception-root" : ""}`);
      box.appendChild(el("div", "pfk-exception-head", `${i === 0 ? "Root exception" : "Earlier"} · step ${x.step} · at ${x.at || `${x.time} ms`} · ${x.task}${x.attempt !== null && x.attempt !== undefined ? ` attempt #${x.attempt}` : ""}${x.location ? ` · ${x.location}` : ""}`));
      box.appendChild(el("div", "pfk-exception-msg", x.exception));
      box.appendChild(el("pre", "pfk-traceback", x.traceback));
      items.push(box);
    });
    panes.exceptions.replaceChildren(...items);
  };
  const drawTimeline = () => {
    const svg = model.get("timeline") || "";
    const box = el("div", "pfk-timeline");
    box.innerHTML = svg || "";
    panes.timeline.replaceChildren(el("div", "pfk-note", "every subtask's ExecutionState over simulated time (the JobMaster's view)"), box);
  };
  const drawState = () => {
    const st = model.get("keyed_state") || {};
    const pre = el("pre", "pfk-keyed-state", Object.keys(st).length ? JSON.stringify(st, null, 1) : "(select a running keyed subtask in the graph)");
    panes.state.replaceChildren(pre);
  };
  const filter = el("select", "pfk-log-filter");
  const logBody = el("div", "pfk-log");
  panes.log.append(filter, logBody);
  filter.onchange = () => drawLog();
  const drawLog = () => {
    const events = model.get("events") || [];
    const comps = ["all", ...new Set(events.map((e) => e.component.replace(/-\d+$|\s\(\d+\/\d+\)$/, "")))];
    const chosen = filter.value || "all";
    filter.replaceChildren(...comps.map((c) => Object.assign(el("option", "", c), { value: c })));
    filter.value = comps.includes(chosen) ? chosen : "all";
    const shown = events.filter((e) => filter.value === "all" || e.component.startsWith(filter.value));
    logBody.replaceChildren(
      ...shown.slice(-80).map((e) => {
        const line = el("div", "pfk-log-line");
        line.append(el("span", "pfk-log-step", `#${e.step}`), el("span", "pfk-log-method", e.method), el("span", "pfk-log-msg", e.message));
        return line;
      }),
    );
    requestAnimationFrame(() => (logBody.scrollTop = logBody.scrollHeight));
  };
  const lazyDraw = { tasks: drawTasks, slots: drawSlots, checkpoints: drawCheckpoints, timeline: drawTimeline, state: drawState, log: drawLog };
  // Fit the visible notebook area (the scrolling ancestor, not the window): the graph and the tab
  // pane share what the status line, toolbar, legend and tabs leave.
  const graphFrame = graphBox.querySelector(".pfk-graph-frame");
  const area = () => notebookArea(root);
  const graphNeed = (px) => cleanupGraph.need(px);
  let fitted = null;
  // The tab pane's least height for the sequence diagram: its pinned header (measured while the
  // pane is shown, kept while another tab is) and a row, at the font scale, in root units; two
  // rows at a larger font scale (not presenting: the current step and the one before it), the
  // graph giving way down to its 14 px floor and scrolling beyond it; `most` caps them. (At 2,
  // 1280 x 800, three rows under the full header left the graph a 120 px strip; the compact
  // header, sequence_svg.compact_lines, and two rows leave it 231-239 px: 03-05 whole.)
  let seqHeadH = 0;
  const seqNeed = (most = 2) => {
    const h = panes.sequence.querySelector(".pfk-seq-headbox");
    const z = pfkFontScale(model);
    const rows = presenting ? 1 : Math.min(most, z > 1 ? 2 : 1);
    const onScreen = h ? h.getBoundingClientRect().height / (root.currentCSSZoom || 1) : 0;
    if (onScreen) seqHeadH = onScreen;
    // (+ the pane's padding, the frame's borders and a px; the body's blank bottom need not show)
    const cs = getComputedStyle(panes.sequence);
    const pad = (parseFloat(cs.paddingTop) || 0) + (parseFloat(cs.paddingBottom) || 0);
    return Math.ceil((seqHeadH || 46 * z) + rows * SEQ_ROW * z + pad + 4);
  };
  const fitArea = () => {
    const a = presenting ? null : area();
    const zoom = presenting ? Number(root.style.zoom) || 1 : 1;
    const visible = (a ? a.clientHeight : window.innerHeight) / zoom;
    // (presenting: the window less the root's padding, counted below, and 2 px)
    const avail = visible - (presenting ? 2 : 12);
    // the children's heights (not the root's: a presenting root is as tall as the window)
    let content = 0;
    for (const child of root.children) {
      const cs = getComputedStyle(child);
      if (cs.position === "absolute" || cs.position === "fixed" || cs.display === "none") continue;
      const z = (child.currentCSSZoom || 1) / (root.currentCSSZoom || 1); // the narration's A+ zoom
      content += (child.offsetHeight + parseFloat(cs.marginTop) + parseFloat(cs.marginBottom)) * z;
    }
    const pad = presenting ? 4 : 0; // (the presenting root's padding, 2 px above and below)
    const fixed = content + pad - graphFrame.offsetHeight - body.offsetHeight;
    const rest = Math.max(presenting ? 280 : 380, avail - fixed);
    // the graph gets the height its whole drawing needs at the smallest readable scale (every
    // subtask in view, no label cut at the pane's bottom), as long as the tab pane keeps 45 %
    // (a presenter's tab pane keeps its header and three rows: the graph is what a hall looks at)
    // (with the metrics strips, whose drawing is taller, the tab pane keeps a quarter: its header
    // and three rows; the boxes' last line is what the Metrics button is about)
    // (presenting the metrics strips: the tab pane keeps its header and a row, the graph whole at
    // 18 px text at 1280 x 800)
    const metrics = model.get("show_metrics");
    const minBody = presenting ? (metrics ? Math.round(rest * 0.15) : Math.max(130, Math.round(rest * 0.3)))
      : metrics ? Math.max(120, Math.round(rest * 0.25)) : Math.round(rest * 0.45);
    // (and the whole drawing at 14 px text, as long as the tab pane keeps 40 %: at a large font
    // scale the graph is drawn smaller rather than cut or scrolled)
    const wanted = Math.max(presenting ? 150 : 170, Math.round(rest * 0.42), Math.min(graphNeed(), rest - minBody),
      Math.min(graphNeed(MIN_FONT_PX), rest - Math.min(minBody, Math.round(rest * 0.4))));
    // (the tab pane never less than the sequence's pinned header and a row at the font scale:
    // never the header alone, the current step's arrows in view; the graph is drawn smaller, down
    // to its 14 px floor, and scrolls beyond it; at a large font scale the Stepper may grow)
    // (the graph whole at its floor comes first where the tab pane keeps two rows beside it: 07's
    // at font scale 2, 1280 x 800, with a short narration; 03's larger graph scrolls beside three)
    const seqLeast = seqNeed(), seqTwo = seqNeed(2);
    const floorNeed = graphNeed(MIN_FONT_PX);
    const whole = floorNeed <= rest - seqTwo ? floorNeed : 0;
    const graphH = Math.max(100, Math.min(presenting ? 150 : 170, rest - seqLeast), Math.min(wanted, Math.max(rest - seqLeast, whole)));
    const bodyH = Math.max(rest - graphH, seqTwo);
    const key = `${graphH}/${bodyH}`;
    if (key === fitted) return;
    fitted = key;
    graphFrame.style.height = `${graphH}px`;
    body.style.height = `${bodyH}px`;
    root.dataset.fit = `${Math.round(visible)}`;
  };
  // Presenter mode: the Stepper over the whole browser window (the Fullscreen API when the browser
  // allows it, else a fixed overlay that hides the notebook's chrome), everything scaled so that
  // the smallest text is at least 18 px; Escape leaves.
  let presenting = false;
  const presenterZoom = () => Math.max(18.1 / MIN_FONT_PX, Math.min(2.2, window.innerWidth / 1100));
  const enterPresenter = (gesture) => {
    presenting = true;
    root.classList.add("pfk-presenting");
    root.style.zoom = String(presenterZoom());
    presentBtn.textContent = "Leave";
    flowStory();
    fitHead();
    if (gesture && root.requestFullscreen) root.requestFullscreen().catch(() => {});
    fitted = null;
    requestAnimationFrame(fitArea);
  };
  const leavePresenter = () => {
    presenting = false;
    root.classList.remove("pfk-presenting");
    root.style.removeProperty("zoom");
    presentBtn.textContent = "Present";
    flowStory();
    fitHead();
    if (document.fullscreenElement === root) document.exitFullscreen().catch(() => {});
    fitted = null;
    requestAnimationFrame(fitArea);
  };
  const onKey = (ev) => presenting && ev.key === "Escape" && leavePresenter();
  const onFullscreen = () => presenting && !document.fullscreenElement && leavePresenter();
  document.addEventListener("keydown", onKey);
  document.addEventListener("fullscreenchange", onFullscreen);
  const onCustom = (msg) => {
    if (msg && msg.event === "present") enterPresenter(false);
    if (msg && msg.event === "leave") leavePresenter();
  };
  model.on("msg:custom", onCustom);
  // After a command: the whole Stepper in the notebook's view (it fits), when it is not.
  const reveal = () => {
    if (!follow || presenting) return;
    follow = false;
    const a = area();
    if (!a) return;
    const r = root.getBoundingClientRect();
    const v = a.getBoundingClientRect();
    if (r.top < v.top || r.bottom > v.bottom) root.scrollIntoView({ block: r.height <= v.height ? "nearest" : "start" });
  };
  const onAnswer = () => requestAnimationFrame(reveal);
  model.on("change:step_count", onAnswer);
  model.on("change:seq_body", onAnswer);
  const all = () => (drawNarration(), drawHead(), drawTasks(), drawSlots(), drawCheckpoints(), drawFailures(), drawTimeline(), drawState(), drawLog(), showTab());
  const handlers = {
    "change:job_status": drawHead, "change:step_count": drawHead, "change:message": drawHead,
    "change:tasks": lazy("tasks", drawTasks), "change:slots": lazy("slots", drawSlots),
    "change:checkpoints": lazy("checkpoints", drawCheckpoints),
    "change:failures": drawFailures, "change:timeline": lazy("timeline", drawTimeline),
    "change:keyed_state": lazy("state", drawState), "change:events": lazy("log", drawLog),
    "change:task_managers": fillTms,
    "change:tab": showTab, "change:layout_mode": applyLayout, "change:narration": drawNarration,
    "change:svg": () => requestAnimationFrame(fitArea),
  };
  for (const [ev, f] of Object.entries(handlers)) handlers[ev] = clock.timed(ev, f);
  for (const [ev, f] of Object.entries(handlers)) model.on(ev, f);
  // (a narrower Stepper: the narration and the status line wrap over more lines)
  let rootWidth = 0;
  const resize = new ResizeObserver(() => {
    applyLayout();
    if (Math.round(root.clientWidth) !== rootWidth) {
      rootWidth = Math.round(root.clientWidth);
      flowStory();
      fitHead();
    }
    fitArea();
  });
  resize.observe(root);
  resize.observe(story); // a presenter's narration grows to hold a long sentence
  requestAnimationFrame(() => {
    const a = area(); // attached by now: the notebook's scrolling area
    if (a) resize.observe(a);
    fitArea();
  });
  root.addEventListener("keydown", (ev) => {
    if (["INPUT", "SELECT", "TEXTAREA"].includes(ev.target.tagName)) return;
    const cmd = { " ": { cmd: "step", n: 1 }, ArrowRight: { cmd: "step", n: 1 }, ArrowLeft: { cmd: "back" } }[ev.key];
    if (!cmd) return;
    ev.preventDefault();
    ev.stopPropagation();
    send(cmd);
  });
  all();
  return () => {
    stopPlay();
    clock.stop();
    resize.disconnect();
    document.removeEventListener("keydown", onKey);
    document.removeEventListener("fullscreenchange", onFullscreen);
    model.off("msg:custom", onCustom);
    model.off("change:step_count", onAnswer);
    model.off("change:seq_body", onAnswer);
    cleanupGraph();
    cleanupSeq();
    cleanupTheme();
    cleanupFont();
    scrubber.cleanup();
    for (const [ev, f] of Object.entries(handlers)) model.off(ev, f);
  };
}

// ---- SparkProgress ------------------------------------------------------------------------------
function renderSparkProgress(model, root) {
  root.classList.add("pfk-spark");
  const line = el("div", "pfk-spark-status");
  const bars = el("div", "pfk-spark-bars");
  const mapping = el("div", "pfk-spark-mapping");
  root.append(line, bars, mapping);
  const draw = () => {
    const p = model.get("progress") || {};
    line.textContent = model.get("status_line");
    line.className = `pfk-spark-status pfk-spark-${p.status || "PENDING"}`;
    bars.replaceChildren(
      ...[["jobs", p.jobs_done, p.jobs_total], ["stages", p.stages_done, p.stages_total], ["tasks", p.tasks_done, p.tasks_total]].map(([name, done, total]) => {
        const row = el("div", "pfk-spark-row");
        const bar = el("progress", `pfk-spark-bar pfk-spark-${name}`);
        bar.max = total || 1;
        bar.value = done || 0;
        row.append(el("span", "pfk-spark-label", `${name} ${done || 0}/${total || 0}`), bar);
        return row;
      }),
    );
    const rows = model.get("stage_table") || [];
    mapping.replaceChildren(...(rows.length ? [table(rows, null, "pfk-stage-table")] : []));
  };
  model.on("change:progress", draw);
  model.on("change:status_line", draw);
  model.on("change:stage_table", draw);
  draw();
  return () => {
    model.off("change:progress", draw);
    model.off("change:status_line", draw);
    model.off("change:stage_table", draw);
  };
}

function render({ model, el: root }) {
  root.classList.add("pfk-widget");
  const kind = model.get("_kind");
  if (kind === "stepper") return renderStepper(model, root); // its `theme` trait (lecture_tools.js)
  // every other view follows JupyterLab's / Notebook 7's theme by CSS alone (theme_colours.css)
  root.classList.add("pfk-themed", "pfk-auto");
  if (kind === "spark_progress") return renderSparkProgress(model, root);
  if (kind === "sequence") return seqPane(model, root);
  root.classList.add("pfk-graph-view");
  return graphPane(model, root);
}

export default { render };

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
  let lastHead = null;
  let lastBody = null;
  // at the newest rows unless the reader scrolled back (kept by the scroll event: reading the
  // scroll position while drawing would force a layout in the middle of a step's answer)
  let atEnd = true;
  frame.addEventListener("scroll", () => {
    atEnd = frame.scrollTop + frame.clientHeight >= frame.scrollHeight - 48;
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
    if (atEnd || box.dataset.follow === "1") {
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
    const w = Math.floor(frame.clientWidth);
    if (!w || Math.abs(w - sent) < 2 || model.get("seq_width") === undefined) return;
    sent = w;
    model.set("seq_width", w);
    model.save_changes();
  };
  const resize = new ResizeObserver(() => {
    clearTimeout(timer);
    timer = setTimeout(sendWidth, 120);
  });
  resize.observe(frame);
  model.on("change:seq_body", draw);
  model.on("change:seq_head", draw);
  draw();
  requestAnimationFrame(() => (sendWidth(), seqShowCurrent(frame, head, body)));
  return () => {
    resize.disconnect();
    clearTimeout(timer);
    cancelAnimationFrame(pending);
    model.off("change:seq_body", draw);
    model.off("change:seq_head", draw);
  };
}

// Scroll (vertically only) so that the current step's rows are all in view, under the fixed
// header; the newest row at the bottom when they do not all fit.
function seqShowCurrent(frame, head, body) {
  const current = body.querySelectorAll("rect.pfk-seq-current");
  if (!current.length) {
    frame.scrollTop = frame.scrollHeight;
    return;
  }
  const headH = head.getBoundingClientRect().height;
  const first = current[0].getBoundingClientRect();
  const last = current[current.length - 1].getBoundingClientRect();
  const view = frame.getBoundingClientRect();
  const top = first.top - view.top - headH; // px below the header's bottom
  const bottom = last.bottom - view.top;
  const height = frame.clientHeight;
  if (bottom > height) frame.scrollTop += bottom - height;
  else if (top < 0) frame.scrollTop += top;
  const again = current[0].getBoundingClientRect().top - view.top - headH;
  if (again < 0 && last.bottom - first.top > height - headH) {
    frame.scrollTop = frame.scrollHeight; // more rows than fit: the newest ones
  }
}

function seqRender({ model, el }) {
  el.classList.add("pfk-widget", "pfk-sequence");
  return seqPane(model, el);
}

export default { render: seqRender };

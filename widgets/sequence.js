// pyflowkit's sequence diagram (anywidget ES module, no build step). The Python side sends the
// lifelines' header and the arrows as SVG; this pane keeps the header fixed above the arrows,
// scrolls to the newest arrow unless the reader scrolled back, and never changes its own size.
// pyflowkit.js is bundled after this file (assets.widget_bundle), so names here start with `seq`.

function seqPane(model, box) {
  const frame = document.createElement("div");
  frame.className = "pfk-seq-frame";
  const head = document.createElement("div");
  head.className = "pfk-seq-headbox";
  const body = document.createElement("div");
  body.className = "pfk-seq-bodybox";
  const hint = document.createElement("div");
  hint.className = "pfk-seq-hint";
  hint.textContent = "newest arrow at the bottom · current step on yellow · scroll back for older ones · hover an arrow for its log line";
  frame.append(head, body);
  box.append(frame, hint);
  let lastHead = null;
  const draw = () => {
    const atEnd = frame.scrollTop + frame.clientHeight >= frame.scrollHeight - 48;
    const h = model.get("seq_head") || "";
    if (h !== lastHead) {
      head.innerHTML = h;
      lastHead = h;
    }
    body.innerHTML = model.get("seq_body") || "";
    if (atEnd) {
      frame.scrollTop = frame.scrollHeight;
      seqFollow(frame, body);
    }
  };
  model.on("change:seq_body", draw);
  model.on("change:seq_head", draw);
  draw();
  requestAnimationFrame(() => (frame.scrollTop = frame.scrollHeight));
  return () => {
    model.off("change:seq_body", draw);
    model.off("change:seq_head", draw);
  };
}

// Scroll sideways so that the newest arrow (its whole span, when it fits) is in view.
function seqFollow(frame, body) {
  const rows = body.querySelectorAll("g.pfk-seq-msg");
  const last = rows[rows.length - 1];
  if (!last) return;
  const shape = last.querySelector("line, path");
  if (!shape || !shape.getBBox) return;
  const box = shape.getBBox();
  const left = box.x - 120;
  const right = box.x + box.width + 220;
  if (left < frame.scrollLeft || right > frame.scrollLeft + frame.clientWidth) {
    frame.scrollLeft = Math.max(0, right - frame.clientWidth > left ? left : right - frame.clientWidth);
  }
}

function seqRender({ model, el }) {
  el.classList.add("pfk-widget", "pfk-sequence");
  return seqPane(model, el);
}

export default { render: seqRender };

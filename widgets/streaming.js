// pyflowkit's streaming job view (anywidget ES module, no build step): a status badge, the job's
// name and a Stop button; once the job has ended, a sentence saying so; a table of the last
// micro-batch (records read, Flink watermark per vertex, state rows, restarts, checkpoints) and
// the print sink's latest lines, newest at the bottom. Stop sends {"action": "stop"}; the Python
// side cancels the job and redraws.

const STR_RUNNING = new Set(["CREATED", "RUNNING"]);
const STR_ENDED = {
  CANCELED: "Stopped: the job is CANCELED. The query has ended; its checkpoints stay.",
  CANCELLING: "Stopping: the query is being cancelled…",
  FINISHED: "The job FINISHED: every source has ended.",
  FAILED: "The job FAILED: the error is in the cell's output.",
};

function strNumber(value) {
  return Math.round(Number(value) || 0).toLocaleString("en-US");
}

function strRow(table, row, label, value, title) {
  const tr = document.createElement("tr");
  tr.dataset.row = row;
  const th = document.createElement("th");
  th.textContent = label;
  if (title) th.title = title;
  const td = document.createElement("td");
  td.textContent = value;
  td.title = value;
  tr.append(th, td);
  table.append(tr);
}

function strRender({ model, el }) {
  const box = document.createElement("div");
  box.className = "pfk-stream pfk-themed pfk-auto"; // the front end's theme (theme_colours.css)
  const head = document.createElement("div");
  head.className = "pfk-stream-head";
  const badge = document.createElement("span");
  badge.className = "pfk-stream-badge";
  const name = document.createElement("span");
  name.className = "pfk-stream-name";
  const stop = document.createElement("button");
  stop.className = "pfk-stream-stop";
  stop.textContent = "■ Stop";
  stop.title = "Cancel the job: the query stops at once, its checkpoints stay";
  stop.addEventListener("click", () => {
    stop.disabled = true;
    stop.textContent = "Stopping…";
    model.send({ action: "stop" });
  });
  head.append(badge, name, stop);
  const note = document.createElement("div");
  note.className = "pfk-stream-note";
  const table = document.createElement("table");
  table.className = "pfk-stream-table";
  const title = document.createElement("div");
  title.className = "pfk-stream-title";
  const lines = document.createElement("pre");
  lines.className = "pfk-stream-lines";
  box.append(head, note, table, title, lines);
  el.append(box);

  const draw = () => {
    const p = model.get("progress") || {};
    const status = p.status || "CREATED";
    badge.textContent = status;
    badge.dataset.status = status;
    name.textContent = p.job_name ? `${p.job_name} · job ${String(p.job_id || "").slice(0, 8)}` : "";
    const running = STR_RUNNING.has(status);
    stop.disabled = !running;
    if (!running) stop.textContent = "■ Stop";
    note.textContent = running ? "" : STR_ENDED[status] || `The job is ${status}.`;
    note.dataset.status = status;
    note.hidden = running;
    table.replaceChildren();
    strRow(table, "batch", "micro-batch",
      p.batch_id == null ? "waiting for the first one" : `#${p.batch_id}, took ${strNumber(p.batch_duration_ms)} ms`);
    strRow(table, "records", "source records",
      `${strNumber(p.source_records)} in the last batch · ${strNumber(p.source_records_per_second)}/s`,
      "records the sources read in the last micro-batch, and per second of it");
    for (const [vertex, mark] of Object.entries(p.watermarks || {})) {
      strRow(table, "watermark", "watermark", `${mark} at ${vertex}`,
        "Flink's input watermark of the vertex (the minimum over its subtasks)");
    }
    strRow(table, "state", "keyed state", `${strNumber(p.state_rows)} rows in RocksDB`);
    strRow(table, "restarts", "restarts", strNumber(p.restarts));
    strRow(table, "checkpoints", "checkpoints", p.checkpoint_location || "–");
    const latest = p.latest_lines || [];
    const printed = p.printed_lines || 0;
    title.dataset.printed = String(printed);
    title.textContent = printed
      ? `Print sink: ${strNumber(printed)} lines so far, the last ${latest.length} below`
      : "Print sink: no lines yet";
    lines.textContent = latest.join("\n");
    lines.scrollTop = lines.scrollHeight;
  };
  model.on("change:progress", draw);
  draw();
  return () => model.off("change:progress", draw);
}

export default { render: strRender };

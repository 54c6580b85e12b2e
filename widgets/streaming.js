// pyflowkit's streaming job view (anywidget ES module, no build step): the job's status line,
// rates, Flink watermark per vertex, state rows, the print sink's latest lines and a Stop button
// that cancels the job (the Python side receives {"action": "stop"}).

function strRow(table, label, value) {
  const tr = document.createElement("tr");
  const th = document.createElement("th");
  th.textContent = label;
  const td = document.createElement("td");
  td.textContent = value;
  tr.append(th, td);
  table.append(tr);
}

function strRender({ model, el }) {
  const box = document.createElement("div");
  box.className = "pfk-widget pfk-stream";
  const head = document.createElement("div");
  head.className = "pfk-stream-head";
  const badge = document.createElement("span");
  badge.className = "pfk-stream-badge";
  const line = document.createElement("span");
  line.className = "pfk-stream-line";
  const stop = document.createElement("button");
  stop.className = "pfk-btn pfk-stream-stop";
  stop.textContent = "Stop";
  stop.title = "Cancel the job (the query stops at once; checkpoints stay)";
  stop.addEventListener("click", () => {
    stop.disabled = true;
    model.send({ action: "stop" });
  });
  head.append(badge, stop, line);
  const table = document.createElement("table");
  table.className = "pfk-stream-table";
  const title = document.createElement("div");
  title.className = "pfk-stream-title";
  const lines = document.createElement("pre");
  lines.className = "pfk-stream-lines";
  box.append(head, table, title, lines);
  el.append(box);
  const draw = () => {
    const p = model.get("progress") || {};
    const status = p.status || "CREATED";
    badge.textContent = status;
    badge.dataset.status = status;
    line.textContent = p.line || "";
    stop.disabled = !(status === "RUNNING" || status === "CREATED");
    table.replaceChildren();
    strRow(table, "micro-batch", p.batch_id == null ? "–" : `${p.batch_id} (${p.batch_duration_ms} ms)`);
    strRow(table, "source records/s", Math.round(p.source_records_per_second || 0).toLocaleString());
    strRow(table, "Spark rows/s in · processed (record chunks)",
      `${Math.round(p.input_rows_per_second || 0).toLocaleString()} · ${Math.round(p.processed_rows_per_second || 0).toLocaleString()}`);
    for (const [vertex, mark] of Object.entries(p.watermarks || {})) {
      strRow(table, `watermark · ${vertex}`, mark);
    }
    strRow(table, "state rows (RocksDB)", (p.state_rows || 0).toLocaleString());
    strRow(table, "restarts", String(p.restarts || 0));
    strRow(table, "checkpoints", p.checkpoint_location || "–");
    const latest = p.latest_lines || [];
    title.textContent = `print sink: ${(p.printed_lines || 0).toLocaleString()} lines, the last ${latest.length}`;
    lines.textContent = latest.join("\n");
  };
  model.on("change:progress", draw);
  draw();
  return () => model.off("change:progress", draw);
}

export default { render: strRender };

// pyflowkit widgets' front end (anywidget ES module, no build step).
// One module for GraphView, Stepper, SequenceView and SparkProgress: the Python class sets the
// `_kind` trait. sequence.js is bundled before this file (assets.widget_bundle) for seqPane.

const SVG_SHAPES = "polygon, ellipse, path";

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// ---- graph pane: SVG laid out once, recoloured by state, click to select, zoom and pan ----------
function graphPane(model, root) {
  const frame = el("div", "pfk-graph-frame");
  const canvas = el("div", "pfk-graph-canvas");
  const legend = el("div", "pfk-legend");
  frame.appendChild(canvas);
  root.appendChild(frame);
  root.appendChild(legend);
  let view = { x: 0, y: 0, k: 1 };
  const applyView = () => {
    canvas.style.transform = `translate(${view.x}px, ${view.y}px) scale(${view.k})`;
  };

  const paintStates = () => {
    const states = model.get("states") || {};
    const colours = model.get("colours") || {};
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
      g.querySelectorAll(SVG_SHAPES).forEach((s) => (s.style.fill = colours[state] || "#ffffff"));
      g.querySelectorAll("text").forEach((s) => (s.style.fill = "#ffffff"));
    }
    const used = new Set(Object.values(states));
    legend.replaceChildren(
      ...Object.entries(colours)
        .filter(([name]) => used.has(name) || ["CREATED", "SCHEDULED", "DEPLOYING", "RUNNING", "FINISHED", "CANCELED", "FAILED"].includes(name))
        .map(([name, colour]) => {
          const item = el("span", `pfk-legend-item pfk-state-${name}`, name);
          item.style.background = colour;
          return item;
        }),
    );
  };

  const paintEdges = () => {
    const marks = model.get("edge_marks") || {};
    canvas.querySelectorAll("g.pfk-barrier, g.pfk-blocked").forEach((g) => {
      g.classList.remove("pfk-barrier", "pfk-blocked");
    });
    for (const [id, mark] of Object.entries(marks)) {
      const g = canvas.querySelector(`g[id="${CSS.escape(id)}"]`);
      if (g) g.classList.add(`pfk-${mark}`);
    }
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
    if (svg) svg.removeAttribute("width"), svg.setAttribute("class", "pfk-svg");
    paintStates();
    paintEdges();
    paintSelection();
  };

  canvas.addEventListener("click", (ev) => {
    const g = ev.target.closest("g.node, g.cluster");
    if (!g || !g.id) return;
    model.set("selected", g.id);
    model.save_changes();
  });
  frame.addEventListener("wheel", (ev) => {
    if (!ev.ctrlKey && !ev.shiftKey) return; // plain wheel scrolls the notebook
    ev.preventDefault();
    const k = Math.min(8, Math.max(0.2, view.k * (ev.deltaY < 0 ? 1.1 : 1 / 1.1)));
    view = { ...view, k };
    applyView();
  });
  let drag = null;
  frame.addEventListener("pointerdown", (ev) => {
    if (ev.button !== 1 && !ev.altKey) return; // middle button or Alt+drag pans
    drag = { x: ev.clientX - view.x, y: ev.clientY - view.y };
    frame.setPointerCapture(ev.pointerId);
  });
  frame.addEventListener("pointermove", (ev) => {
    if (!drag) return;
    view = { ...view, x: ev.clientX - drag.x, y: ev.clientY - drag.y };
    applyView();
  });
  frame.addEventListener("pointerup", () => (drag = null));
  const zoom = el("div", "pfk-zoom");
  for (const [label, f] of [["+", 1.25], ["−", 0.8], ["fit", 0]]) {
    const b = el("button", "pfk-btn pfk-zoom-btn", label);
    b.onclick = () => {
      view = f ? { ...view, k: view.k * f } : { x: 0, y: 0, k: 1 };
      applyView();
    };
    zoom.appendChild(b);
  }
  frame.appendChild(zoom);

  model.on("change:svg", drawSvg);
  model.on("change:states", paintStates);
  model.on("change:colours", paintStates);
  model.on("change:edge_marks", paintEdges);
  model.on("change:selected", paintSelection);
  drawSvg();
  return () => {
    model.off("change:svg", drawSvg);
    model.off("change:states", paintStates);
    model.off("change:colours", paintStates);
    model.off("change:edge_marks", paintEdges);
    model.off("change:selected", paintSelection);
  };
}

// ---- tables -------------------------------------------------------------------------------------
function table(rows, columns, cls) {
  const t = el("table", `pfk-table ${cls || ""}`);
  const cols = columns || (rows.length ? Object.keys(rows[0]) : []);
  const head = el("tr");
  cols.forEach((c) => head.appendChild(el("th", "", c)));
  t.appendChild(head);
  for (const row of rows) {
    const tr = el("tr");
    for (const c of cols) {
      const cls = c === "state" ? `pfk-state-${row[c]}` : c === "status" ? `pfk-ck-status pfk-ck-status-${row[c]}` : "";
      const td = el("td", cls, row[c] === null || row[c] === undefined ? "" : String(row[c]));
      tr.appendChild(td);
    }
    t.appendChild(tr);
  }
  return t;
}

function section(root, title, cls) {
  const box = el("div", `pfk-pane ${cls}`);
  box.appendChild(el("div", "pfk-pane-title", title));
  const body = el("div", "pfk-pane-body");
  box.appendChild(body);
  root.appendChild(box);
  return body;
}

// ---- Stepper ------------------------------------------------------------------------------------
function renderStepper(model, root) {
  root.classList.add("pfk-stepper");
  root.tabIndex = 0;
  const send = (msg) => model.send(msg);
  const bar = el("div", "pfk-toolbar");
  const status = el("span", "pfk-badge");
  const stepNo = el("span", "pfk-step-no");
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
  button("Submit", "pfk-submit", () => send({ cmd: "submit" }), "MiniCluster.submitJob");
  button("Step", "pfk-step", () => send({ cmd: "step", n: 1 }), "deliver one message (space)");
  const nInput = el("input", "pfk-n");
  nInput.type = "number";
  nInput.min = "1";
  nInput.value = "10";
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
  button("Savepoint", "pfk-savepoint", () => send({ cmd: "savepoint" }));
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
  button("Reset", "pfk-reset", () => send({ cmd: "reset", seed: Number(seed.value) || 0 }));
  bar.appendChild(seed);
  const head = el("div", "pfk-head");
  head.append(status, stepNo);
  const msg = el("div", "pfk-message");
  root.append(head, bar, msg);

  const grid = el("div", "pfk-grid");
  root.appendChild(grid);
  const graphBox = section(grid, "ExecutionGraph (click a subtask)", "pfk-graph-pane");
  const cleanupGraph = graphPane(model, graphBox);
  const seqBox = section(grid, "Sequence diagram: one arrow per RPC or call", "pfk-seq-pane");
  const cleanupSeq = seqPane(model, seqBox);
  const tasksBox = section(grid, "Tasks", "pfk-tasks-pane");
  const slotsBox = section(grid, "Slots (TaskExecutor × slot)", "pfk-slots-pane");
  const ckBox = section(grid, "Checkpoints", "pfk-checkpoint-pane");
  const stateBox = section(grid, "Keyed state of the selected subtask", "pfk-state-pane");
  const logBox = section(grid, "Event log", "pfk-log-pane");
  const filter = el("select", "pfk-log-filter");
  const logBody = el("div", "pfk-log");
  logBox.append(filter, logBody);
  filter.onchange = () => drawLog();

  const drawHead = () => {
    const s = model.get("job_status") || "NOT SUBMITTED";
    status.textContent = s;
    status.className = `pfk-badge pfk-state-${s}`;
    status.style.background = (model.get("colours") || {})[s] || "#8c8c8c";
    stepNo.textContent = `step ${model.get("step_count")}`;
    msg.textContent = model.get("message");
  };
  const drawTasks = () => {
    tasksBox.replaceChildren(
      table(model.get("tasks"), ["name", "state", "attempt", "task_executor", "slot", "records_in", "records_out", "back_pressured"], "pfk-tasks"),
    );
  };
  const drawSlots = () => {
    slotsBox.replaceChildren(table(model.get("slots"), ["task_executor", "slot", "alive", "state", "tasks"], "pfk-slots"));
  };
  const drawCheckpoints = () => {
    const ck = model.get("checkpoints") || {};
    const parts = [];
    if (!ck.available) {
      parts.push(el("div", "pfk-note", ck.note || "no checkpoints"));
      return ckBox.replaceChildren(...parts);
    }
    const counts = ck.counts || {};
    parts.push(
      el("div", "pfk-ck-counts",
        `completed ${counts.COMPLETED || 0} · in progress ${counts.IN_PROGRESS || 0} · failed ${counts.FAILED || 0}`),
    );
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
      parts.push(t);
    }
    ckBox.replaceChildren(...parts);
  };
  const drawState = () => {
    const st = model.get("keyed_state") || {};
    const pre = el("pre", "pfk-keyed-state", Object.keys(st).length ? JSON.stringify(st, null, 1) : "(select a running keyed subtask)");
    stateBox.replaceChildren(pre);
  };
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
    logBody.scrollTop = logBody.scrollHeight;
  };
  const all = () => (drawHead(), drawTasks(), drawSlots(), drawCheckpoints(), drawState(), drawLog());
  const handlers = {
    "change:job_status": drawHead, "change:step_count": drawHead, "change:message": drawHead,
    "change:tasks": drawTasks, "change:slots": drawSlots, "change:checkpoints": drawCheckpoints,
    "change:keyed_state": drawState, "change:events": drawLog, "change:task_managers": fillTms,
  };
  for (const [ev, f] of Object.entries(handlers)) model.on(ev, f);
  root.addEventListener("keydown", (ev) => {
    if (ev.key === " " && !["INPUT", "SELECT"].includes(ev.target.tagName)) {
      ev.preventDefault();
      ev.stopPropagation();
      send({ cmd: "step", n: 1 });
    }
  });
  all();
  return () => {
    stopPlay();
    cleanupGraph();
    cleanupSeq();
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
  if (kind === "stepper") return renderStepper(model, root);
  if (kind === "spark_progress") return renderSparkProgress(model, root);
  if (kind === "sequence") return seqPane(model, root);
  root.classList.add("pfk-graph-view");
  return graphPane(model, root);
}

export default { render };

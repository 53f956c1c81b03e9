/* HeartBench workbench: claim a unit, label criteria from the keyboard, autosave, submit.
   Vendored, dependency-free; everything it shows comes from the blind expert API. */
(function () {
  "use strict";
  const root = document.getElementById("workbench");
  if (!root) return;
  const api = root.dataset.api;
  const study = root.dataset.study;
  const $ = (id) => document.getElementById(id);
  // Strings come from Django's JavaScript catalogue (/jsi18n/, loaded before this script);
  // without it the English source strings are shown.
  const gettext = window.gettext || ((text) => text);
  const interpolate = window.interpolate || ((fmt, args) => fmt.replace(/%s/g, () => args.shift()));
  const state = { assignment: null, labels: {}, current: 0, expires: null, saveTimer: null, lost: false };

  // Shared with the senior queue's page (expert-common.js, loaded before this script).
  const { request, busyStatus, renderDialogue, leaseLeft } = window.HeartBenchExpert;

  async function call(method, path, body) {
    const res = await request(api + path, method, body, (wait) => status(busyStatus(wait)));
    const data = res.data;
    // The claim names why it handed out nothing (204, or 404 for a study that is not yours).
    const workState = res.headers.get("HeartBench-Work-State");
    if (workState) return { status: res.status, data, workState };
    if (res.status === 409 && data && data.code === "lease_lost") { leaseLost(data.detail); throw new Error("lease lost"); }
    if (res.status === 409 && data) { leaseLost(data.detail); throw new Error("conflict"); }
    if (!res.ok) { status(interpolate(gettext("Error %s: %s"), [res.status, data ? (data.detail || JSON.stringify(data)) : ""])); throw new Error(String(res.status)); }
    return { status: res.status, data };
  }

  function status(text) { $("status").textContent = text; }

  function leaseLost(reason) {
    state.lost = true;
    $("lost-reason").textContent = reason || "";
    $("lost").hidden = false;
    $("unit").hidden = true;
  }

  async function next() {
    $("lost").hidden = true; state.lost = false;
    status(gettext("Loading the next unit…"));
    const { data, workState } = await call("POST", "assignments/next/?study=" + encodeURIComponent(study));
    if (workState) { showState(workState); return; }
    show(data);
  }

  // The server rendered one message per state, hidden; show the one the API named (an
  // unknown name falls back to "nothing left") and nothing of the workbench under it.
  function showState(name) {
    const messages = Array.from($("empty").querySelectorAll(".state-message"));
    const known = messages.some((m) => m.dataset.state === name) ? name : "nothing_left";
    for (const m of messages) m.hidden = m.dataset.state !== known;
    $("empty").dataset.state = known;
    $("unit").hidden = true; $("keys").hidden = true; $("empty").hidden = false;
    state.assignment = null;
    status("");
  }

  function show(a) {
    state.assignment = a; state.current = 0; state.labels = {};
    for (const [id, v] of Object.entries(a.draft || {})) state.labels[id] = { hit: v.hit, note: v.note || "" };
    state.expires = new Date(a.lease_expires_at);
    $("unit-token").textContent = a.unit.token;
    renderDialogue($("dialogue"), a.unit.dialogue);
    $("response").textContent = a.unit.response;
    const list = $("criteria"); list.replaceChildren();
    a.unit.criteria.forEach((c, i) => {
      const li = document.createElement("li"); li.dataset.id = c.id;
      li.addEventListener("click", () => { state.current = i; paint(); });
      const mark = document.createElement("span"); mark.className = "mark";
      const text = document.createElement("span"); text.className = "text"; text.textContent = c.text;
      li.append(mark, text);
      if (c.ability) { const ab = document.createElement("span"); ab.className = "ability"; ab.textContent = window.HeartBenchExpert.abilityName(c.ability); li.append(ab); }
      const note = document.createElement("textarea"); note.rows = 2; note.placeholder = gettext("Note (Esc to leave)");
      note.value = (state.labels[c.id] || {}).note || ""; note.hidden = !note.value;
      note.addEventListener("input", () => { label(c.id).note = note.value; scheduleSave(); });
      li.append(note); list.append(li);
    });
    $("empty").hidden = true; $("keys").hidden = false; $("unit").hidden = false;
    status(gettext("Rate each criterion: does the response meet it?"));
    paint(); tick();
  }

  function label(id) { return (state.labels[id] = state.labels[id] || { hit: null, note: "" }); }
  function complete() {
    return state.assignment && state.assignment.unit.criteria.every((c) => typeof (state.labels[c.id] || {}).hit === "boolean");
  }

  function paint() {
    const items = $("criteria").children;
    let done = 0;
    Array.from(items).forEach((li, i) => {
      const v = state.labels[li.dataset.id] || {};
      li.classList.toggle("current", i === state.current);
      li.classList.toggle("hit", v.hit === true); li.classList.toggle("miss", v.hit === false);
      li.querySelector(".mark").textContent = v.hit === true ? gettext("✓ hit") : v.hit === false ? gettext("✗ miss") : "·";
      if (typeof v.hit === "boolean") done += 1;
    });
    $("progress").textContent = done + " / " + items.length;
    $("submit").disabled = !complete();
    const cur = items[state.current]; if (cur) cur.scrollIntoView({ block: "nearest" });
  }

  function payload() {
    // Each label names the rubric version of the text on screen, so it records what was read.
    const shown = {};
    for (const c of state.assignment.unit.criteria) shown[c.id] = c.version;
    return Object.entries(state.labels).map(([criterion, v]) => ({ criterion, hit: v.hit, note: v.note || "", version: shown[criterion] }));
  }

  function scheduleSave() {
    clearTimeout(state.saveTimer);
    state.saveTimer = setTimeout(save, 700);
  }

  async function save() {
    if (!state.assignment || state.lost) return;
    const { data } = await call("PUT", "assignments/" + state.assignment.id + "/draft/", { labels: payload() });
    state.expires = new Date(data.lease_expires_at);
    $("saved").textContent = interpolate(gettext("Draft saved %s"), [new Date().toLocaleTimeString()]);
  }

  async function submit() {
    if (!complete() || state.lost) return;
    clearTimeout(state.saveTimer);
    $("submit").disabled = true;
    $("calibration-result").hidden = true;
    const { data } = await call("POST", "assignments/" + state.assignment.id + "/submit/", { labels: payload() });
    if (data && data.calibration) calibrationResult(data.calibration);
    status(gettext("Submitted ✓ — loading the next unit…"));
    await next();
  }

  // Only the submission that finishes a calibration sitting says so, with the sitting's result;
  // while it lasted its units looked like any other.
  function calibrationResult(c) {
    const percent = (share) => String(Math.round(share * 1000) / 10) + " %";
    const args = [c.agreed, c.criteria, percent(c.agreement || 0), percent(c.pass_threshold)];
    const text = c.passed
      ? gettext("Calibration passed: %s of %s criteria as the senior expert marked them (%s; pass mark %s). Study work follows.")
      : gettext("Calibration not passed: %s of %s criteria as the senior expert marked them (%s; pass mark %s). You will take the calibration again before any study work.");
    $("calibration-text").textContent = interpolate(text, args);
    Object.assign($("calibration-result").dataset, { passed: String(Boolean(c.passed)), agreed: c.agreed, criteria: c.criteria });
    $("calibration-result").classList.toggle("error", !c.passed);
    $("calibration-result").hidden = false;
  }

  function mark(hit) {
    const c = state.assignment.unit.criteria[state.current];
    label(c.id).hit = hit;
    if (state.current < state.assignment.unit.criteria.length - 1) state.current += 1;
    paint(); scheduleSave();
  }

  function move(delta) {
    const n = state.assignment.unit.criteria.length;
    state.current = Math.max(0, Math.min(n - 1, state.current + delta)); paint();
  }

  document.addEventListener("keydown", (e) => {
    if (!state.assignment || state.lost || $("unit").hidden) return;
    if (e.target.tagName === "TEXTAREA") {
      if (e.key === "Escape") { e.preventDefault(); e.target.blur(); }
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const keys = {
      j: () => move(1), ArrowDown: () => move(1), k: () => move(-1), ArrowUp: () => move(-1),
      1: () => mark(true), 0: () => mark(false), Enter: () => submit(),
      n: () => { const note = $("criteria").children[state.current].querySelector("textarea"); note.hidden = false; note.focus(); },
    };
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });
  $("submit").addEventListener("click", submit);
  $("lost-next").addEventListener("click", next);

  // The lease timer ticks every second; the lease is renewed every minute while the page is open.
  function tick() {
    if (!state.expires || state.lost) return;
    $("lease-timer").textContent = leaseLeft(state.expires);
  }
  setInterval(tick, 1000);
  setInterval(async () => {
    if (!state.assignment || state.lost || $("unit").hidden) return;
    const { data } = await call("POST", "assignments/" + state.assignment.id + "/renew/");
    state.expires = new Date(data.lease_expires_at);
  }, 60000);

  next().catch(() => {});
})();

/* HeartBench workbench: claim a unit, label criteria (or, on a pairwise unit, choose the better
   of two responses) with the keyboard, mouse or a finger, autosave, submit.
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
  const ngettext = window.ngettext || ((one, many, n) => (n === 1 ? one : many));
  const state = { assignment: null, labels: {}, choice: null, current: 0, expires: null, saveTimer: null, lost: false, submitting: false };
  const pairwise = () => Boolean(state.assignment) && state.assignment.unit.question_type === "pairwise";

  // Shared with the senior queue's page (expert-common.js, loaded before this script).
  const { request, busyStatus, renderDialogue, leaseLeft, outcomeButtons, paintOutcome, kept } = window.HeartBenchExpert;
  const { signedOut, confirmation, confirmationDone, openAtTop } = window.HeartBenchExpert;

  // Active time on the shown unit: a second counts only while the tab is visible and the expert
  // used the page (key, pointer, scroll, typing) within the idle cap. Reading counts, walking
  // away does not; a minute covers reading a long dialogue or response without touching
  // anything. The count travels with every autosave and the submit, and a reload carries on
  // from the draft's figure.
  const IDLE_CAP_MS = 60 * 1000;
  const timing = { ms: 0, lastInput: Date.now() };
  const activeSeconds = () => Math.floor(timing.ms / 1000);
  for (const type of ["keydown", "pointerdown", "pointermove", "scroll", "input"]) {
    document.addEventListener(type, () => { timing.lastInput = Date.now(); }, { capture: true, passive: true });
  }

  async function call(method, path, body) {
    const res = await request(api + path, method, body, (wait) => status(busyStatus(wait)));
    const data = res.data;
    // The claim names why it handed out nothing (204, or 404 for a study that is not yours).
    const workState = res.headers.get("HeartBench-Work-State");
    if (workState) return { status: res.status, data, workState };
    if (res.status === 401) { $("saved").textContent = ""; signedOut(); throw new Error("signed out"); }
    if (res.status === 409 && data && data.code === "lease_lost") { leaseLost(data.detail); throw new Error("lease lost"); }
    if (res.status === 409 && data) {
      const own = state.assignment && path.startsWith("work/rating/" + state.assignment.id + "/");
      if (own) await conflict(data.detail); else leaseLost(data.detail);
      throw new Error("conflict");
    }
    if (!res.ok) { status(interpolate(gettext("Error %s: %s"), [res.status, data ? (data.detail || JSON.stringify(data)) : ""])); throw new Error(String(res.status)); }
    return { status: res.status, data };
  }

  function status(text) { $("status").textContent = text; }

  // A refusal that is not a lost lease: the unit was most likely submitted from another tab.
  // Then this tab's marks are shown beside what was submitted; else the refusal as it came.
  async function conflict(reason) {
    const id = state.assignment.id, labels = state.labels, criteria = state.assignment.unit.criteria;
    const res = await request(api + "work/rating/" + id + "/", "GET").catch(() => null);
    const submitted = res && res.ok && res.data.submitted;
    if (!submitted) { leaseLost(reason); return; }
    state.lost = true; kept.drop(id);
    const word = (v) => (v && v.hit === true ? gettext("✓ met") : v && v.hit === false ? gettext("✗ not met") : "—");
    $("two-tabs-marks").tBodies[0].replaceChildren(...criteria.map((c, i) => {
      const row = document.createElement("tr");
      for (const text of [(i + 1) + ". " + c.text, word(labels[c.id]), word(submitted[c.id])]) {
        const td = document.createElement("td"); td.textContent = text; row.append(td);
      }
      return row;
    }));
    $("two-tabs-marks").hidden = !criteria.length;  // a pair has no marks to set side by side
    $("unit").hidden = true; $("two-tabs").hidden = false; status("");
    window.scrollTo(0, 0);
  }

  function leaseLost(reason) {
    state.lost = true;
    $("lost-reason").textContent = reason || "";
    $("lost").hidden = false;
    $("unit").hidden = true;
  }

  async function next() {
    $("lost").hidden = true; $("two-tabs").hidden = true; state.lost = false;
    status(gettext("Loading the next unit…"));
    const { data, workState } = await call("POST", "work/rating/next/?study=" + encodeURIComponent(study));
    if (workState) { refreshProgress(); showState(workState); return; }
    showProgress(data.progress);
    show(data);
  }

  // The study's progress line: a claim's answer carries it; when nothing was handed out it
  // is read from the API, quietly skipped when that request fails (the numbers on screen
  // stay as they were).
  async function refreshProgress() {
    const panel = $("study-progress");
    if (!panel) return;
    const res = await request(panel.dataset.url, "GET").catch(() => null);
    if (res && res.ok && res.data) showProgress(res.data);
  }

  // A count whose data-more flag is set stopped at its cap: shown as "100+".
  function showProgress(progress) {
    const panel = $("study-progress");
    if (!panel || !progress) return;
    for (const el of panel.querySelectorAll("[data-key]")) {
      el.textContent = `${progress[el.dataset.key]}${progress[el.dataset.more] ? "+" : ""}`;
    }
    Object.assign(panel.querySelector("progress"), { max: progress.team_total, value: progress.team_complete });
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
    state.assignment = a; state.current = 0; state.labels = {}; state.choice = null;
    timing.ms = (a.active_seconds || 0) * 1000; timing.lastInput = Date.now();
    // The draft, then what this browser kept and the server may not have (a lost session).
    const keep = kept.get(a.id) || {};
    for (const [id, v] of Object.entries({ ...(a.draft || {}), ...keep })) state.labels[id] = { hit: v.hit, note: v.note || "" };
    state.expires = new Date(a.lease_expires_at);
    $("unit-token").textContent = a.unit.token;
    renderDialogue($("dialogue"), a.unit.dialogue);
    $("response").textContent = a.unit.response;
    showType(a.unit);
    const list = $("criteria"); list.replaceChildren();
    a.unit.criteria.forEach((c, i) => {
      const li = document.createElement("li"); li.dataset.id = c.id;
      // Clicking anywhere on a criterion selects it; the buttons also mark it.
      li.addEventListener("click", () => { if (state.current !== i) { state.current = i; paint(); } });
      const body = document.createElement("div"); body.className = "criterion";
      const text = document.createElement("span"); text.className = "text"; text.textContent = c.text;
      body.append(text);
      if (c.ability) { const ab = document.createElement("span"); ab.className = "ability"; ab.textContent = window.HeartBenchExpert.abilityName(c.ability); body.append(ab); }
      const choices = document.createElement("div"); choices.className = "choices";
      const number = String(i + 1);
      const noteButton = document.createElement("button"); noteButton.type = "button"; noteButton.className = "note-button";
      noteButton.textContent = gettext("Note"); noteButton.setAttribute("aria-label", interpolate(gettext("Note on criterion %s"), [number]));
      noteButton.addEventListener("click", (e) => { e.stopPropagation(); state.current = i; paint(); openNote(); });
      choices.append(...outcomeButtons(number, (hit) => mark(hit, i, false)), noteButton);
      const note = document.createElement("textarea"); note.rows = 2; note.placeholder = gettext("Note (Esc to leave)");
      note.setAttribute("aria-label", interpolate(gettext("Note on criterion %s"), [number]));
      note.value = (state.labels[c.id] || {}).note || ""; note.hidden = !note.value;
      note.addEventListener("input", () => { label(c.id).note = note.value; scheduleSave(); });
      li.append(body, choices, note); list.append(li);
    });
    $("empty").hidden = true; $("keys").hidden = false; $("unit").hidden = false;
    state.submitting = false; $("submit").disabled = false;
    status(pairwise() ? gettext("Read both responses, then choose the better one, or a tie.")
      : gettext("Rate each criterion: does the response meet it?"));
    paint(false); tick(); openAtTop(root);
    if (Object.keys(keep).length) scheduleSave();
  }

  // The parts of the page for this kind of unit (data-for="rubric" or "pairwise"); a pair's two
  // responses, in the order this assignment shows them, and no choice made yet. A pair's choice
  // is not autosaved (the draft holds only criteria labels): it is one press away.
  function showType(unit) {
    const type = unit.question_type === "pairwise" ? "pairwise" : "rubric";
    $("unit").dataset.question = type;
    for (const el of root.querySelectorAll("[data-for]")) el.hidden = el.dataset.for !== type;
    $("response").closest("section").hidden = type === "pairwise";
    if (type !== "pairwise") return;
    [$("response-a").textContent, $("response-b").textContent] = unit.responses;
    $("reason").value = ""; paintChoice();
  }

  // a: the response shown first, b: the second, or a tie; it can be changed until the submit.
  function choose(choice) {
    state.choice = choice; confirmationDone(); paintChoice();
  }

  function paintChoice() {
    for (const b of $("pair-choice").querySelectorAll("[data-choice]")) b.setAttribute("aria-pressed", String(b.dataset.choice === state.choice));
  }

  function label(id) { return (state.labels[id] = state.labels[id] || { hit: null, note: "" }); }
  const marked = (c) => typeof (state.labels[c.id] || {}).hit === "boolean";
  function complete() {
    return state.assignment && state.assignment.unit.criteria.every(marked);
  }

  // `follow`: bring the selected criterion into view (not when a unit opens: it opens at its top).
  function paint(follow = true) {
    const items = $("criteria").children;
    let done = 0;
    Array.from(items).forEach((li, i) => {
      const v = state.labels[li.dataset.id] || {};
      li.classList.toggle("current", i === state.current);
      paintOutcome(li, typeof v.hit === "boolean" ? v.hit : null);
      if (i === state.current) li.setAttribute("aria-current", "true"); else li.removeAttribute("aria-current");
      if (typeof v.hit === "boolean") done += 1;
    });
    $("progress").textContent = interpolate(gettext("%(done)s of %(total)s marked"), { done, total: items.length }, true);
    Object.assign($("progress").dataset, { done, total: items.length });
    if (state.unmarkedSaid && done === items.length) {
      state.unmarkedSaid = false;
      status(gettext("Every criterion is marked: Enter or the Submit button sends them."));
    }
    const cur = items[state.current]; if (cur && follow) cur.scrollIntoView({ block: "nearest" });
  }

  function payload() {
    // Each label names the rubric version of the text on screen, so it records what was read.
    const shown = {};
    for (const c of state.assignment.unit.criteria) shown[c.id] = c.version;
    return Object.entries(state.labels).map(([criterion, v]) => ({ criterion, hit: v.hit, note: v.note || "", version: shown[criterion] }));
  }

  function scheduleSave() {
    if (state.assignment) kept.set(state.assignment.id, state.labels);
    clearTimeout(state.saveTimer);
    state.saveTimer = setTimeout(save, 700);
  }

  async function save() {
    if (!state.assignment || state.lost || pairwise()) return;
    const id = state.assignment.id, sent = JSON.stringify(state.labels);
    const { data } = await call("PUT", "work/rating/" + id + "/draft/", { labels: payload(), active_seconds: activeSeconds() });
    // The server has these marks now: the browser keeps only marks it has not (so a newer
    // draft saved from another device is not overwritten by an old copy here).
    if (JSON.stringify(state.labels) === sent) kept.drop(id);
    state.expires = new Date(data.lease_expires_at);
    $("saved").textContent = interpolate(gettext("Draft saved %s"), [new Date().toLocaleTimeString()]);
  }

  async function submit() {
    if (!state.assignment || state.lost || state.submitting) return;
    if (pairwise() && !state.choice) { status(gettext("Choose A, B or a tie first.")); return; }
    const criteria = state.assignment.unit.criteria;
    const first = criteria.findIndex((c) => !marked(c));
    if (first >= 0) {
      // Not yet: say how many are left and go to the first of them.
      const left = criteria.filter((c) => !marked(c)).length;
      state.current = first; state.unmarkedSaid = true; paint();
      status(interpolate(ngettext(
        "%s criterion is not marked yet; the first unmarked one is selected.",
        "%s criteria are not marked yet; the first unmarked one is selected.", left), [left]));
      return;
    }
    clearTimeout(state.saveTimer);
    state.submitting = true; $("submit").disabled = true;
    $("calibration-result").hidden = true;
    let data;
    try {
      const answer = pairwise() ? { choice: state.choice, reason: $("reason").value } : { labels: payload() };
      ({ data } = await call("POST", "work/rating/" + state.assignment.id + "/submit/", { ...answer, active_seconds: activeSeconds() }));
    } catch (err) {
      state.submitting = false; $("submit").disabled = false;
      throw err;
    }
    kept.drop(state.assignment.id);
    if (data && data.calibration) calibrationResult(data.calibration);
    confirmation(interpolate(gettext("Unit %s submitted ✓"), [state.assignment.unit.token]));
    status(gettext("Loading the next unit…"));
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

  // Mark a criterion; a mark can be changed until the unit is submitted. From the keyboard the
  // selection then moves on; a click leaves it on the clicked criterion, so nothing scrolls
  // under the pointer.
  function mark(hit, index = state.current, advance = true) {
    const c = state.assignment.unit.criteria[index];
    label(c.id).hit = hit; confirmationDone();
    state.current = advance ? Math.min(index + 1, state.assignment.unit.criteria.length - 1) : index;
    paint(); scheduleSave();
  }

  function openNote() {
    const note = pairwise() ? $("reason") : $("criteria").children[state.current].querySelector("textarea");
    note.hidden = false; note.focus();
  }

  function openHelp() { if (!$("help").open) $("help").showModal(); }

  function move(delta) {
    const n = state.assignment.unit.criteria.length;
    state.current = Math.max(0, Math.min(n - 1, state.current + delta)); paint();
  }

  // Elements whose own Enter must not be taken for "submit" (a header link, a button, a field).
  const OWN_ENTER = "a[href], button, input, select, textarea, summary, [contenteditable]";

  document.addEventListener("keydown", (e) => {
    if (!state.assignment || state.lost || $("unit").hidden) return;
    if ($("help").open) return;  // the dialog closes itself on Esc
    if (e.target.tagName === "TEXTAREA") {
      if (e.key === "Escape") { e.preventDefault(); e.target.blur(); }
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    // A closed dialog's Close button may keep the focus until the browser's next frame; an
    // Enter pressed at once is the expert's, not that hidden button's.
    const own = e.target.closest && e.target.closest(OWN_ENTER) && !e.target.closest("dialog:not([open])");
    if (e.key === "Enter" && own) return;
    const keys = pairwise() ? {
      a: () => choose("a"), 1: () => choose("a"), t: () => choose("tie"), 2: () => choose("tie"), "=": () => choose("tie"),
      b: () => choose("b"), 3: () => choose("b"), Enter: () => submit(), n: openNote, "?": openHelp,
    } : {
      j: () => move(1), ArrowDown: () => move(1), k: () => move(-1), ArrowUp: () => move(-1),
      1: () => mark(true), 0: () => mark(false), Enter: () => submit(), n: openNote, "?": openHelp,
    };
    // A pair's letters work with Shift or Caps Lock too.
    const key = pairwise() && e.key.length === 1 ? e.key.toLowerCase() : e.key;
    if (keys[key]) { e.preventDefault(); keys[key](); }
  });
  $("submit").addEventListener("click", submit);
  for (const b of $("pair-choice").querySelectorAll("[data-choice]")) b.addEventListener("click", () => choose(b.dataset.choice));
  $("help-open").addEventListener("click", openHelp);
  $("lost-next").addEventListener("click", next);
  $("two-tabs-next").addEventListener("click", next);

  // The lease timer ticks every second; the lease is renewed every minute while the page is open.
  function tick() {
    if (!state.expires || state.lost) return;
    $("lease-timer").textContent = leaseLeft(state.expires);
  }
  setInterval(tick, 1000);
  setInterval(() => {
    if (!state.assignment || state.lost || $("unit").hidden || document.visibilityState !== "visible") return;
    if (Date.now() - timing.lastInput <= IDLE_CAP_MS) timing.ms += 1000;
  }, 1000);
  // Leaving the tab saves the count so far (a reload or a closed tab carries on from it);
  // coming back counts as activity.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") { timing.lastInput = Date.now(); return; }
    if (state.assignment && !state.lost && !state.submitting) save().catch(() => {});
  });
  setInterval(async () => {
    if (!state.assignment || state.lost || $("unit").hidden) return;
    const { data } = await call("POST", "work/rating/" + state.assignment.id + "/renew/");
    state.expires = new Date(data.lease_expires_at);
  }, 60000);

  next().catch(() => {});
})();

/* HeartBench senior queue: claim a unit to adjudicate, decide each criterion (met / not met)
   with a required reason, or, on a pair, choose A, B or a tie with a required reason; with the
   mouse, a finger or the keyboard. Shows only what the blind adjudication API returns: the
   unit and, per criterion, how many ratings said met and not met, or, on a pair, how many
   chose each side as this page shows them. Laid out, kept and confirmed as the workbench is
   (expert-common.js, workbench.css; a pair with the workbench's partials and keys). */
(function () {
  "use strict";
  const root = document.getElementById("adjudicate");
  if (!root || !window.HeartBenchExpert) return;
  const { request, busyStatus, renderDialogue, leaseLeft, outcomeButtons, paintOutcome, kept } = window.HeartBenchExpert;
  const { signedOut, confirmation, confirmationDone, openAtTop, abilityName } = window.HeartBenchExpert;
  const api = root.dataset.api;
  const study = root.dataset.study;
  const $ = (id) => document.getElementById(id);
  const gettext = window.gettext || ((text) => text);
  const interpolate = window.interpolate || ((fmt, args) => fmt.replace(/%s/g, () => args.shift()));
  const state = { item: null, decisions: {}, choice: null, current: 0, expires: null, lost: false, busy: false };
  const pairwise = () => Boolean(state.item) && state.item.unit.question_type === "pairwise";

  function status(text) { $("status").textContent = text; }

  function lost(reason) {
    state.lost = true;
    $("lost-reason").textContent = reason || "";
    $("lost").hidden = false; $("unit").hidden = true;
  }

  // `refusal`: a 400 comes back to the caller (a pair's decision without a reason) instead of
  // being shown as an error.
  async function call(method, path, body, { refusal = false } = {}) {
    const res = await request(api + path, method, body, (wait) => status(busyStatus(wait)));
    const detail = res.data && (res.data.detail || JSON.stringify(res.data));
    if (res.status === 401) { signedOut(); throw new Error("signed out"); }
    // A decision refused without a lost lease: another tab or window decided the unit first.
    if (res.status === 409 && path.endsWith("/submit/") && !(res.data && res.data.code === "lease_lost")) {
      state.lost = true; kept.drop(state.item.id); $("two-tabs").hidden = false; status(""); window.scrollTo(0, 0);
      throw new Error("decided elsewhere");
    }
    if (res.status === 409) { lost(detail); throw new Error("conflict"); }
    if (res.status === 400 && refusal) return res;
    if (!res.ok) { status(interpolate(gettext("Error %s: %s"), [res.status, detail || ""])); throw new Error(String(res.status)); }
    return res;
  }

  async function next() {
    $("lost").hidden = true; $("two-tabs").hidden = true; state.lost = false;
    status(gettext("Loading the next unit to adjudicate…"));
    const res = await call("POST", "work/adjudication/next/?study=" + encodeURIComponent(study));
    if (res.status === 204) { $("unit").hidden = true; $("empty").hidden = false; status(""); return; }
    show(res.data);
  }

  function show(a) {
    state.item = a; state.current = 0; state.choice = null;
    // Decisions this browser kept (a lost session, a reload) come back with the unit.
    state.decisions = kept.get(a.id) || {};
    state.expires = new Date(a.lease_expires_at);
    $("unit-token").textContent = a.unit.token;
    renderDialogue($("dialogue"), a.unit.dialogue);
    showType(a.unit);
    if (pairwise()) { showPair(a.unit); return; }
    $("response").textContent = a.unit.response;
    $("scope").textContent = a.unit.whole_unit
      ? gettext("This unit never got three ratings: decide every criterion.")
      : gettext("The ratings split on these criteria: decide each one.");
    const list = $("criteria"); list.replaceChildren();
    a.unit.criteria.forEach((c, i) => {
      const li = document.createElement("li"); li.dataset.id = c.id;
      li.addEventListener("click", () => { if (state.current !== i) { state.current = i; paint(); } });
      const body = document.createElement("div"); body.className = "criterion";
      const text = document.createElement("span"); text.className = "text"; text.textContent = c.text;
      body.append(text);
      if (c.ability) { const ab = document.createElement("span"); ab.className = "ability"; ab.textContent = abilityName(c.ability); body.append(ab); }
      const choices = document.createElement("div"); choices.className = "choices";
      choices.append(...outcomeButtons(String(i + 1), (hit) => mark(hit, i)));
      const reason = document.createElement("textarea"); reason.rows = 2; reason.className = "reason";
      reason.placeholder = gettext("Reason (required; Esc to leave)");
      reason.setAttribute("aria-label", interpolate(gettext("Reason for criterion %s"), [String(i + 1)]));
      reason.value = (state.decisions[c.id] || {}).reason || "";
      reason.addEventListener("input", () => { decision(c.id).reason = reason.value; keep(); paint(false); });
      li.append(body, choices, reason); list.append(li);
    });
    $("empty").hidden = true; $("unit").hidden = false;
    status(gettext("Decide each criterion and give your reason."));
    paint(false); tick(); openAtTop(root);
  }

  // The parts of the page for this kind of unit (data-for="rubric" or "pairwise"), as the
  // workbench shows them; a pair's single response box stays hidden.
  function showType(unit) {
    const type = unit.question_type === "pairwise" ? "pairwise" : "rubric";
    $("unit").dataset.question = type;
    for (const el of root.querySelectorAll("[data-for]")) el.hidden = el.dataset.for !== type;
    $("response").closest("section").hidden = type === "pairwise";
  }

  // A pair: A is the response this senior's assignment shows first. The choice and reason
  // this browser kept come back with it.
  function showPair(unit) {
    [$("response-a").textContent, $("response-b").textContent] = unit.responses;
    $("scope").textContent = unit.whole_unit
      ? gettext("This pair never got three choices: decide which response is better, and say why.")
      : gettext("The raters split three ways on this pair: decide which response is better, and say why.");
    state.choice = ["a", "b", "tie"].includes(state.decisions.choice) ? state.decisions.choice : null;
    $("reason").value = typeof state.decisions.reason === "string" ? state.decisions.reason : "";
    refusedShown("");
    $("empty").hidden = true; $("unit").hidden = false;
    status(gettext("Read both responses, choose the better one or a tie, and give your reason."));
    paint(false); tick(); openAtTop(root);
  }

  // a: the response shown first, b: the second, or a tie; it can be changed until the submit.
  function choose(choice) {
    state.choice = choice; keepPair(); confirmationDone(); paint(false);
  }

  function keepPair() { kept.set(state.item.id, { choice: state.choice, reason: $("reason").value }); }

  // The server's refusal of the reason (in the page's language), under the reason box.
  function refusedShown(text) {
    $("reason-error").textContent = text; $("reason-error").hidden = !text;
    if (text) $("reason").setAttribute("aria-invalid", "true"); else $("reason").removeAttribute("aria-invalid");
  }

  function decision(id) { return (state.decisions[id] = state.decisions[id] || { hit: null, reason: "" }); }
  function keep() { kept.set(state.item.id, state.decisions); }

  function complete() {
    return state.item && state.item.unit.criteria.every((c) => {
      const d = state.decisions[c.id] || {};
      return typeof d.hit === "boolean" && (d.reason || "").trim() !== "";
    });
  }

  function paint(follow = true) {
    if (pairwise()) {
      for (const b of $("pair-choice").querySelectorAll("[data-choice]")) b.setAttribute("aria-pressed", String(b.dataset.choice === state.choice));
      $("submit").disabled = state.busy || state.lost;
      return;
    }
    const items = $("criteria").children;
    let done = 0;
    Array.from(items).forEach((li, i) => {
      const d = state.decisions[li.dataset.id] || {};
      li.classList.toggle("current", i === state.current);
      paintOutcome(li, typeof d.hit === "boolean" ? d.hit : null);
      if (typeof d.hit === "boolean" && (d.reason || "").trim()) done += 1;
    });
    $("progress").textContent = done + " / " + items.length;
    $("submit").disabled = !complete() || state.busy || state.lost;
    const cur = items[state.current]; if (cur && follow) cur.scrollIntoView({ block: "nearest" });
  }

  function focusReason() {
    if (pairwise()) { $("reason").focus(); return; }
    const li = $("criteria").children[state.current];
    if (li) li.querySelector("textarea").focus();
  }

  // From a button or the keyboard: the decision, then its reason box while that is empty.
  function mark(hit, index = state.current) {
    const c = state.item.unit.criteria[index];
    state.current = index; decision(c.id).hit = hit; keep(); confirmationDone();
    paint();
    if (!decision(c.id).reason.trim()) focusReason();
  }

  function move(delta) {
    const n = state.item.unit.criteria.length;
    state.current = Math.max(0, Math.min(n - 1, state.current + delta)); paint();
  }

  // A pair's decision: a choice is needed first; a blank reason is sent and the server's
  // refusal shown (nothing is stored); a second press while one is on its way does nothing.
  async function submitPair() {
    if (state.lost || state.busy) return;
    if (!state.choice) { status(gettext("Choose A, B or a tie first.")); return; }
    state.busy = true; paint(false);
    try {
      const body = { choice: state.choice, reason: $("reason").value };
      const res = await call("POST", "work/adjudication/" + state.item.id + "/submit/", body, { refusal: true });
      if (res.status === 400) {
        const d = res.data || {};
        const said = [].concat(d.reason || d.choice || d.detail || []).join(" ") || JSON.stringify(d);
        refusedShown(said); status(said); $("reason").focus();
        return;
      }
      kept.drop(state.item.id);
      confirmation(interpolate(gettext("Decision on pair %s recorded ✓"), [state.item.unit.token]));
      await next();
    } finally { state.busy = false; paint(false); }
  }

  async function submit() {
    if (pairwise()) return submitPair();
    if (!complete() || state.lost || state.busy) return;
    state.busy = true; paint(false);
    const shown = new Set(state.item.unit.criteria.map((c) => c.id));
    const decisions = Object.entries(state.decisions).filter(([criterion]) => shown.has(criterion))
      .map(([criterion, d]) => ({ criterion, hit: d.hit, reason: d.reason }));
    try {
      await call("POST", "work/adjudication/" + state.item.id + "/submit/", { decisions });
      kept.drop(state.item.id);
      confirmation(interpolate(gettext("Decisions on unit %s recorded ✓"), [state.item.unit.token]));
      await next();
    } finally { state.busy = false; paint(false); }
  }

  document.addEventListener("keydown", (e) => {
    if (!state.item || state.lost || $("unit").hidden) return;
    if (e.target.tagName === "TEXTAREA") {
      if (e.key === "Escape") { e.preventDefault(); e.target.blur(); }
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "Enter" && e.target.closest && e.target.closest("a[href], button")) return;
    const keys = pairwise() ? {
      a: () => choose("a"), 1: () => choose("a"), t: () => choose("tie"), 2: () => choose("tie"), "=": () => choose("tie"),
      b: () => choose("b"), 3: () => choose("b"), n: focusReason, Enter: () => submit(),
    } : {
      j: () => move(1), ArrowDown: () => move(1), k: () => move(-1), ArrowUp: () => move(-1),
      1: () => mark(true), 0: () => mark(false), r: focusReason, Enter: () => submit(),
    };
    // A pair's letters work with Shift or Caps Lock too, as in the workbench.
    const key = pairwise() && e.key.length === 1 ? e.key.toLowerCase() : e.key;
    if (keys[key]) { e.preventDefault(); keys[key](); }
  });
  $("submit").addEventListener("click", () => submit().catch(() => {}));
  for (const b of $("pair-choice").querySelectorAll("[data-choice]")) b.addEventListener("click", () => choose(b.dataset.choice));
  $("reason").addEventListener("input", () => { if (pairwise()) { keepPair(); refusedShown(""); } });
  $("lost-next").addEventListener("click", () => next().catch(() => {}));
  $("two-tabs-next").addEventListener("click", () => next().catch(() => {}));

  function tick() {
    if (!state.expires || state.lost) return;
    $("lease-timer").textContent = leaseLeft(state.expires);
  }
  setInterval(tick, 1000);
  setInterval(async () => {
    if (!state.item || state.lost || $("unit").hidden) return;
    const res = await call("POST", "work/adjudication/" + state.item.id + "/renew/");
    state.expires = new Date(res.data.lease_expires_at);
  }, 60000);

  next().catch(() => {});
})();

/* Pieces the expert pages share (workbench, senior queue): the CSRF token, JSON calls to the
   expert API, the dialogue as a chat, and the lease clock. Vendored, dependency-free. The JSON
   call is the platform's one fetch helper: the admin's runs page polls through it too. */
(function () {
  "use strict";
  const gettext = window.gettext || ((text) => text);
  const interpolate = window.interpolate || ((text, args) => args.reduce((t, a) => t.replace("%s", a), text));

  function csrf() {
    const m = document.cookie.match(/(?:^|; )csrftoken=([^;]+)/);
    return m ? decodeURIComponent(m[1]) : "";
  }

  // A 503 means "busy, nothing was changed": wait as long as Retry-After says (at most
  // BUSY_WAIT_MAX seconds) and send again, up to BUSY_TRIES times, telling the page meanwhile.
  const BUSY_TRIES = 6, BUSY_WAIT_MAX = 10;
  const sleep = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

  // One JSON request; resolves to {status, ok, data, headers} and leaves error handling to the
  // page. `onBusy(seconds)` is called before each wait on a busy server.
  async function request(url, method, body, onBusy) {
    for (let attempt = 1; ; attempt += 1) {
      const res = await fetch(url, {
        method, credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrf() },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (res.status === 503 && attempt < BUSY_TRIES) {
        const wait = Math.min(BUSY_WAIT_MAX, Number(res.headers.get("Retry-After")) || 1);
        if (onBusy) onBusy(wait);
        await sleep(wait);
        continue;
      }
      const data = res.status === 204 ? null : await res.json().catch(() => null);
      return { status: res.status, ok: res.ok, data, headers: res.headers };
    }
  }

  // What a page shows while it waits for a busy server.
  function busyStatus(seconds) {
    return interpolate(gettext("The server is busy; trying again in %s s…"), [seconds]);
  }

  // The dialogue turns as chat bubbles, text only (never HTML from the data).
  function renderDialogue(list, dialogue) {
    list.replaceChildren();
    for (const turn of dialogue) {
      const li = document.createElement("li"); li.className = turn.role;
      const who = document.createElement("span"); who.className = "who";
      who.textContent = turn.role === "user" ? gettext("User") : gettext("Counsellor");
      li.append(who, document.createTextNode(turn.content)); list.append(li);
    }
  }

  function leaseLeft(expires) {
    const left = Math.max(0, Math.round((expires - new Date()) / 1000));
    return String(Math.floor(left / 60)).padStart(2, "0") + ":" + String(left % 60).padStart(2, "0");
  }

  // Ability codes (what the API sends) to names in the page's language, from the JSON the
  // page embeds with {% ability_names_script %}; a code without a name is shown as it is.
  const abilityNames = (() => {
    const el = document.getElementById("ability-names");
    try { return el ? JSON.parse(el.textContent) : {}; } catch (e) { return {}; }
  })();
  function abilityName(code) { return abilityNames[code] || code; }

  window.HeartBenchExpert = { csrf, request, busyStatus, renderDialogue, leaseLeft, abilityName };
})();

/* Pieces the expert pages share (workbench, senior queue): the CSRF token, JSON calls to the
   expert API, the dialogue as a chat, and the lease clock. Vendored, dependency-free. */
(function () {
  "use strict";
  const gettext = window.gettext || ((text) => text);

  function csrf() {
    const m = document.cookie.match(/(?:^|; )csrftoken=([^;]+)/);
    return m ? decodeURIComponent(m[1]) : "";
  }

  // One JSON request; resolves to {status, ok, data} and leaves error handling to the page.
  async function request(url, method, body) {
    const res = await fetch(url, {
      method, credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf() },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const data = res.status === 204 ? null : await res.json().catch(() => null);
    return { status: res.status, ok: res.ok, data };
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

  window.HeartBenchExpert = { csrf, request, renderDialogue, leaseLeft, abilityName };
})();

/* Pieces the expert pages share (workbench, senior queue): the CSRF token, JSON calls to the
   expert API, the dialogue as a chat, the lease clock, the met / not met buttons, marks kept
   in the browser, the signed-out banner, the confirmation of a submit. Vendored, dependency-free. The JSON
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

  // A criterion's two outcomes as buttons a mouse or a finger can use; `mark(hit)` is called
  // with true (met) or false (not met). The names say the criterion's number (from 1).
  function outcomeButtons(number, mark) {
    return [[true, "hit-button", gettext("✓ Met"), gettext("Met: criterion %s")],
      [false, "miss-button", gettext("✗ Not met"), gettext("Not met: criterion %s")]].map(([hit, cls, caption, name]) => {
      const b = document.createElement("button"); b.type = "button"; b.className = cls;
      b.textContent = caption; b.setAttribute("aria-label", interpolate(name, [number]));
      b.setAttribute("aria-pressed", "false");
      b.addEventListener("click", (e) => { e.stopPropagation(); mark(hit); });
      return b;
    });
  }

  // A criterion's item as its outcome stands (true, false, or null: not marked yet).
  function paintOutcome(li, hit) {
    li.classList.toggle("hit", hit === true); li.classList.toggle("miss", hit === false);
    li.querySelector(".hit-button").setAttribute("aria-pressed", String(hit === true));
    li.querySelector(".miss-button").setAttribute("aria-pressed", String(hit === false));
  }

  // Marks kept in the browser until the server has them for good (the submit), so a lost
  // session, a closed tab or a crash loses nothing: one entry per assignment.
  const KEPT = "heartbench-marks:";
  const kept = {
    get(id) { try { return JSON.parse(localStorage.getItem(KEPT + id)) || null; } catch (e) { return null; } },
    set(id, marks) { try { localStorage.setItem(KEPT + id, JSON.stringify(marks)); } catch (e) { /* full or off */ } },
    drop(id) { try { localStorage.removeItem(KEPT + id); } catch (e) { /* off */ } },
  };

  // The session is gone (401): the unit and its marks stay on screen, and the banner's login
  // comes back to this page, which picks the unit up again with the kept marks.
  function signedOut() {
    const banner = document.getElementById("signed-out");
    banner.querySelector("a").href = "/login/?next=" + encodeURIComponent(location.pathname);
    banner.hidden = false;
  }

  // "Submitted ✓" stays on screen until the expert acts on the next unit.
  function confirmation(text) {
    const el = document.getElementById("confirmation");
    el.querySelector("span").textContent = text; el.hidden = false;
  }
  function confirmationDone() { document.getElementById("confirmation").hidden = true; }

  // A unit opens at its beginning: the page and every box that scrolls at their tops.
  function openAtTop(root) {
    window.scrollTo(0, 0);
    for (const el of root.querySelectorAll(".chat, .response, .criteria, .card")) el.scrollTop = 0;
  }

  window.HeartBenchExpert = {
    csrf, request, busyStatus, renderDialogue, leaseLeft, abilityName, outcomeButtons, paintOutcome,
    kept, signedOut, confirmation, confirmationDone, openAtTop,
  };
})();

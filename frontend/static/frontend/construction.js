/* Keyboard for the construction tiers' forms (difficulty, criterion review, senior panel);
   every key has a mouse twin on the page. A key names a choice through the radio's data-key,
   inside the current criterion where the page has several (J/K move, C writes a comment).
   Ctrl+Enter submits. Keys typed into a text field are text, except Ctrl+Enter and Escape. */
(function () {
  "use strict";
  const form = document.getElementById("construct-form");
  if (!form) return;
  const scopes = Array.from(form.querySelectorAll("[data-scope]"));
  let current = 0;

  function show(index) {
    if (!scopes.length) return;
    current = Math.max(0, Math.min(scopes.length - 1, index));
    scopes.forEach((scope, i) => scope.classList.toggle("current", i === current));
    scopes[current].scrollIntoView({ block: "nearest" });
  }
  scopes.forEach((scope, i) => scope.addEventListener("focusin", () => show(i)));
  scopes.forEach((scope, i) => scope.addEventListener("click", () => show(i)));

  document.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit();
      return;
    }
    const typing = event.target.matches("textarea, input[type=text], input:not([type])");
    if (event.key === "Escape" && typing) { event.target.blur(); return; }
    if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
    const key = event.key.toLowerCase();
    const scope = scopes.length ? scopes[current] : form;
    if (scopes.length && (key === "j" || key === "k")) {
      event.preventDefault();
      show(current + (key === "j" ? 1 : -1));
      return;
    }
    if (key === "c") {
      const note = scope.querySelector("textarea");
      if (note) { event.preventDefault(); note.focus(); }
      return;
    }
    const radio = scope.querySelector(`input[type=radio][data-key="${CSS.escape(key)}"]`);
    if (!radio) return;
    event.preventDefault();
    radio.checked = true;
    radio.focus();
    // A verdict other than "clear" or a return needs words: go to the comment at once.
    const needsWords = (radio.name.startsWith("verdict-") && radio.value !== "clear") || radio.value === "return";
    const note = needsWords ? scope.querySelector("textarea") : null;
    if (note) note.focus();
    else if (radio.name.startsWith("verdict-") && current < scopes.length - 1) show(current + 1);
  });
})();

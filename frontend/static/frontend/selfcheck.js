/* The self-check labelling page (frontend/views/selfcheck.py): the workbench's keys on a
   plain form that also works by mouse and without this script. j / k move, 1 met, 0 not met
   (then the next criterion), Enter submits, or goes to the first unlabelled criterion. Each
   mark is saved at once (action "autosave"). */
(function () {
  "use strict";
  const form = document.getElementById("selfcheck-form");
  if (!form) return;
  const items = Array.from(form.querySelectorAll("li[data-criterion]"));
  const saved = document.getElementById("selfcheck-saved");
  let current = 0;

  function select(index) {
    current = Math.max(0, Math.min(items.length - 1, index));
    items.forEach((item, i) => item.classList.toggle("current", i === current));
    items[current].scrollIntoView({ block: "nearest" });
  }
  function unlabelled() {
    return items.findIndex((item) => !item.querySelector("input:checked"));
  }
  // "Saved." only once every save sent so far has answered, so it never speaks too soon.
  let pending = 0;
  let failed = false;
  function autosave() {
    const body = new FormData(form);
    body.set("action", "autosave");
    pending += 1;
    saved.textContent = gettext("Saving…");
    fetch(window.location.pathname, { method: "POST", body: body, credentials: "same-origin" })
      .then((response) => { failed = failed || !response.ok; })
      .catch(() => { failed = true; })
      .finally(() => {
        pending -= 1;
        if (pending > 0) return;
        saved.textContent = failed ? gettext("Not saved: submit the form to see why.") : gettext("Saved.");
        failed = false;
      });
  }
  function mark(value) {
    const input = items[current].querySelector(`input[value="${value}"]`);
    input.checked = true;
    input.dispatchEvent(new Event("change", { bubbles: true }));
    select(current + 1);
  }

  items.forEach((item, index) => item.addEventListener("click", () => select(index)));
  form.addEventListener("change", autosave);
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target.tagName === "BUTTON" || event.target.tagName === "A") return;
    if (event.key === "j") { select(current + 1); event.preventDefault(); }
    else if (event.key === "k") { select(current - 1); event.preventDefault(); }
    else if (event.key === "1") { mark("1"); event.preventDefault(); }
    else if (event.key === "0") { mark("0"); event.preventDefault(); }
    else if (event.key === "Enter") {
      event.preventDefault();
      const first = unlabelled();
      if (first === -1) document.getElementById("selfcheck-submit").click();
      else {
        select(first);
        saved.textContent = gettext("Label every criterion first.");
      }
    }
  });
  const first = unlabelled();
  select(first === -1 ? 0 : first);
})();

// The expert page's invitation link: a button that copies it (shown only where the browser
// can copy), and the link selected when it takes the focus, so Ctrl+C copies it anyway.
(function () {
  "use strict";
  var field = document.getElementById("invitation-link");
  var button = document.getElementById("copy-link");
  var status = document.getElementById("copy-status");
  if (!field) return;
  field.addEventListener("focus", function () { field.select(); });
  if (!button || !navigator.clipboard || !window.isSecureContext) return;
  button.hidden = false;
  button.addEventListener("click", function () {
    navigator.clipboard.writeText(field.value).then(
      function () { status.textContent = button.dataset.copied; },
      function () { field.focus(); status.textContent = button.dataset.failed; }
    );
  });
})();

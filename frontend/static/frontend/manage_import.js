/* The staff import page: sends a form's file with XMLHttpRequest so that a <progress> shows the
   upload, then "importing" until the server answers, then puts the page the server drew (the
   outcome and fresh forms) in place of this one. Without this script the forms post as they
   are and the server draws the same page. The texts come translated in data-* attributes. */
(function () {
  "use strict";
  var BUSY_TRIES = 6, BUSY_WAIT_MAX = 10;
  if (!window.XMLHttpRequest || !window.FormData || !window.DOMParser) { return; }

  function page() { return document.getElementById("import-page"); }
  function fill(text, values) {
    return text.replace(/\{(\w+)\}/g, function (whole, key) {
      return Object.prototype.hasOwnProperty.call(values, key) ? String(values[key]) : whole;
    });
  }
  function size(bytes) {
    if (bytes < 1024) { return bytes + " B"; }
    if (bytes < 1024 * 1024) { return (bytes / 1024).toFixed(1) + " KB"; }
    if (bytes < 1024 * 1024 * 1024) { return (bytes / 1024 / 1024).toFixed(1) + " MB"; }
    return (bytes / 1024 / 1024 / 1024).toFixed(1) + " GB";
  }
  function busy(on) {
    var root = page();
    root.setAttribute("aria-busy", on ? "true" : "false");
    root.querySelectorAll("form[data-import] button[type=submit]").forEach(function (b) { b.disabled = on; });
  }
  function tell(form, text, failed) {
    var box = form.querySelector(".upload-progress");
    box.hidden = false;
    box.classList.toggle("failed", Boolean(failed));
    box.querySelector("label").textContent = text;
    return box.querySelector("progress");
  }
  function stop(form, text) {
    var bar = tell(form, text, true);
    bar.hidden = true;
    busy(false);
  }
  function replace(html) {
    var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("import-page");
    if (!fresh) { return false; }
    page().replaceWith(document.importNode(fresh, true));
    var outcome = document.getElementById("import-outcome");
    if (outcome && !outcome.hidden) {
      outcome.focus();
      outcome.scrollIntoView({ block: "start" });
    }
    return true;
  }

  function send(form, data, name, attempt) {
    var root = page();
    var xhr = new XMLHttpRequest();
    var bar = tell(form, fill(root.dataset.uploading, { name: name, loaded: size(0), total: "…" }));
    bar.hidden = false;
    bar.max = 100;
    bar.value = 0;
    busy(true);
    xhr.upload.addEventListener("progress", function (event) {
      if (!event.lengthComputable) { return; }
      bar.max = event.total;
      bar.value = event.loaded;
      tell(form, fill(root.dataset.uploading, { name: name, loaded: size(event.loaded), total: size(event.total) }));
    });
    xhr.upload.addEventListener("load", function () {
      bar.removeAttribute("value");  // indeterminate: the server is reading the file
      tell(form, fill(root.dataset.importing, { name: name }));
      form.classList.add("importing");
    });
    xhr.addEventListener("load", function () {
      if (xhr.status === 503 && attempt < BUSY_TRIES) {
        var wait = Math.min(BUSY_WAIT_MAX, Number(xhr.getResponseHeader("Retry-After")) || 1);
        tell(form, fill(root.dataset.busy, { seconds: wait }));
        window.setTimeout(function () { send(form, data, name, attempt + 1); }, wait * 1000);
        return;
      }
      // The import page answers 200 (imported) or 400/409 (refused, with the reason); anything
      // else (a login page, a CSRF refusal) is not an answer from the importer.
      var ours = [200, 400, 409].indexOf(xhr.status) >= 0 && xhr.responseURL.split("?")[0] === form.action.split("?")[0];
      if (!(ours && replace(xhr.responseText))) {
        stop(form, fill(root.dataset.failed, { status: xhr.status }));
      }
    });
    xhr.addEventListener("error", function () { stop(form, root.dataset.broken); });
    xhr.open("POST", form.action);
    xhr.setRequestHeader("X-Requested-With", "XMLHttpRequest");
    xhr.send(data);
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("form[data-import]")) { return; }
    var root = page();
    if (root.getAttribute("aria-busy") === "true") { event.preventDefault(); return; }
    var input = form.querySelector("input[type=file]");
    var file = input && input.files && input.files[0];
    var name = file ? file.name : "";
    if (file && file.size > Number(root.dataset.maxBytes)) {
      event.preventDefault();
      stop(form, fill(root.dataset.tooBig, { name: name, size: size(file.size), limit: root.dataset.maxSize }));
      return;
    }
    event.preventDefault();
    send(form, new FormData(form), name, 1);
  });
})();

/* The admin's runs page: polls runs.json and updates each run's row in place (a new run reloads
   the page so that the server draws its row). Requests go through the one fetch helper,
   HeartBenchExpert.request (expert-common.js), which also waits out a busy server. */
(function () {
  "use strict";
  var root = document.getElementById("dashboard-runs");
  var POLL_MS = 4000;
  function pct(r) { return r.progress === null ? "—" : Math.round(r.progress * 100) + "%"; }
  function fill(tableId, runs) {
    var body = document.querySelector("#" + tableId + " tbody");
    var known = {};
    body.querySelectorAll("tr[data-run]").forEach(function (row) { known[row.dataset.run] = row; });
    var fresh = runs.some(function (r) { return !known[String(r.id)]; });
    if (fresh) { window.location.reload(); return; }  // a new run: let the server draw its row
    runs.forEach(function (r) {
      var row = known[String(r.id)];
      var set = function (field, value) {
        var cell = row.querySelector('[data-field="' + field + '"]');
        if (cell && cell.textContent !== String(value)) { cell.textContent = value; }
      };
      set("status", r.status_label); set("done", r.done); set("total", r.total); set("progress", pct(r));
      set("errors", r.errors); set("requests", r.requests); set("cost", r.cost.toFixed(4));
      row.classList.toggle("late", Boolean(r.alert));
    });
  }
  function retrying() { document.getElementById("runs-updated").textContent = root.dataset.retry; }
  function poll() {
    window.HeartBenchExpert.request(root.dataset.source, "GET", undefined, retrying)
      .then(function (response) {
        if (!response.ok || !response.data) { throw new Error(response.status); }
        return response.data;
      })
      .then(function (data) {
        fill("judge-runs", data.judge_runs);
        fill("generation-runs", data.generation_runs);
        var updated = document.getElementById("runs-updated");
        updated.textContent = data.at_label;
        updated.setAttribute("datetime", data.at);
      })
      .catch(retrying)
      .finally(function () { window.setTimeout(poll, POLL_MS); });
  }
  window.setTimeout(poll, POLL_MS);
})();

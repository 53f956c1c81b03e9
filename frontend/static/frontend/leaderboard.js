// The leaderboard page: sort the score table by any column in the browser, and keep the
// model comparison at the server's limit (the server refuses more as well).
(function () {
  "use strict";

  function cellValue(row, index, kind) {
    var raw = row.cells[index].getAttribute("data-value") || "";
    if (kind === "text") return raw.toLowerCase();
    return raw === "" ? null : parseFloat(raw);
  }

  function sortBy(table, header) {
    var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
    var index = headers.indexOf(header);
    var kind = header.getAttribute("data-sort");
    var ascending = header.getAttribute("aria-sort") !== "ascending";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows).filter(function (r) {
      return r.cells.length === headers.length;
    });
    rows.sort(function (a, b) {
      var x = cellValue(a, index, kind), y = cellValue(b, index, kind);
      if (x === y) return 0;
      if (x === null) return 1; // missing values last either way
      if (y === null) return -1;
      return (x < y ? -1 : 1) * (ascending ? 1 : -1);
    });
    rows.forEach(function (r) { body.appendChild(r); });
    headers.forEach(function (h) { h.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  }

  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("th[data-sort]").forEach(function (header) {
      header.tabIndex = 0;
      header.addEventListener("click", function () { sortBy(table, header); });
      header.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          sortBy(table, header);
        }
      });
    });
  });

  var form = document.getElementById("compare-form");
  if (!form) return;
  var limit = parseInt(form.getAttribute("data-max"), 10);
  var message = document.getElementById("compare-limit");
  form.addEventListener("change", function (event) {
    var box = event.target;
    if (box.type !== "checkbox") return;
    var ticked = form.querySelectorAll("input[name=models]:checked").length;
    if (box.checked && ticked > limit) {
      box.checked = false;
      message.hidden = false;
    } else {
      message.hidden = true;
    }
  });
})();

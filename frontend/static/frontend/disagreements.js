// The disagreement viewer's keys: j / k move between items, o opens or closes the current
// one, e follows its rubric-edit link, n / p go to the next / previous page. Typing in a
// form field is left alone.
(function () {
  "use strict";
  function items() {
    return Array.prototype.slice.call(document.querySelectorAll("details.item"));
  }
  function current() {
    return document.querySelector("details.item.current");
  }
  function select(item) {
    var was = current();
    if (was) was.classList.remove("current");
    item.classList.add("current");
    var summary = item.querySelector("summary");
    summary.focus();
    summary.scrollIntoView({block: "nearest"});
  }
  function follow(selector) {
    var link = document.querySelector(selector);
    if (link) window.location.href = link.href;
  }
  document.addEventListener("focusin", function (event) {
    var item = event.target.closest && event.target.closest("details.item");
    if (item && item !== current()) {
      var was = current();
      if (was) was.classList.remove("current");
      item.classList.add("current");
    }
  });
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var tag = event.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    var list = items();
    var here = list.indexOf(current());
    if (event.key === "j" && list.length) select(list[Math.min(here + 1, list.length - 1)]);
    else if (event.key === "k" && list.length) select(list[Math.max(here - 1, 0)]);
    else if (event.key === "o" && here >= 0) list[here].open = !list[here].open;
    else if (event.key === "e" && here >= 0) window.location.href = list[here].querySelector("a.edit").href;
    else if (event.key === "n") follow(".pages a[rel=next]");
    else if (event.key === "p") follow(".pages a[rel=prev]");
    else return;
    event.preventDefault();
  });
})();

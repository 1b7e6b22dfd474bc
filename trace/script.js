"use strict";
// The page's one script: the search box, and the timeline's links. The search shows the
// messages and calls whose text holds what is typed (case-insensitive), opens what holds
// them (the full text of a long one, when the hit is past its head), and hides the others.
// A click on a bar of the timeline opens the call it links to (shown again if a search hid
// it) and scrolls to it. It reads the page's own text only; nothing is fetched, nothing
// written as markup.
document.addEventListener("DOMContentLoaded", function () {
  var q = document.getElementById("q");
  var count = document.getElementById("count");
  var items = Array.prototype.slice.call(document.querySelectorAll(".item"));
  function open(el) {
    for (var p = el; p; p = p.parentElement) {
      if (p.tagName === "DETAILS") { p.open = true; }
    }
  }
  // reveal opens what inside a hit holds the text: the full text of a long one when its
  // head does not show it, a stack, a reasoning.
  function reveal(el, s) {
    Array.prototype.forEach.call(el.querySelectorAll("details"), function (d) {
      var head = d.previousElementSibling;
      if (d.textContent.toLowerCase().indexOf(s) === -1) { return; }
      if (!d.classList.contains("full") || head.textContent.toLowerCase().indexOf(s) === -1) { d.open = true; }
    });
  }
  function apply() {
    var s = q.value.trim().toLowerCase();
    var shown = 0;
    items.forEach(function (el) {
      var hit = s === "" || el.textContent.toLowerCase().indexOf(s) !== -1;
      el.hidden = !hit;
      if (hit) {
        shown++;
        if (s !== "") { open(el); reveal(el, s); }
      }
    });
    count.textContent = s === "" ? "" : shown + " of " + items.length + " shown";
  }
  q.addEventListener("input", apply);
  Array.prototype.forEach.call(document.querySelectorAll(".chart a"), function (a) {
    a.addEventListener("click", function () {
      var el = document.getElementById(a.getAttribute("href").slice(1));
      if (el) {
        el.hidden = false;
        open(el);
        el.scrollIntoView();
      }
    });
  });
});

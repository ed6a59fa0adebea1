/* Evidence dialogs. Vanilla JS, no framework, no network. A chip (or a graph edge) with
   data-claim="ID" opens <dialog id="ev-ID">; Escape or the Close button closes it and focus
   returns to the chip that opened it. A chip inside a dialog replaces the open dialog. */
(function () {
  "use strict";
  var opener = null;
  var chaining = false;

  function dialogFor(id) { return document.getElementById("ev-" + id); }

  function open(id, from) {
    var d = dialogFor(id);
    if (!d || typeof d.showModal !== "function") { return false; }
    var current = document.querySelector("dialog.evidence[open]");
    if (current === d) { return true; }
    if (current) { chaining = true; current.close(); chaining = false; }
    else { opener = from; }
    d.showModal();
    return true;
  }

  document.addEventListener("click", function (e) {
    var t = e.target.closest ? e.target.closest("[data-claim]") : null;
    if (t) {
      if (open(t.getAttribute("data-claim"), t)) { e.preventDefault(); }
      return;
    }
    var c = e.target.closest ? e.target.closest("[data-close]") : null;
    if (c) { var d = c.closest("dialog"); if (d) { d.close(); } }
  });

  var dialogs = document.querySelectorAll("dialog.evidence");
  for (var i = 0; i < dialogs.length; i++) {
    dialogs[i].addEventListener("close", function () {
      if (chaining) { return; }
      var o = opener;
      opener = null;
      if (o && typeof o.focus === "function") { o.focus(); }
    });
    dialogs[i].addEventListener("click", function (e) {
      if (e.target === e.currentTarget) {  /* a click on the backdrop */
        var r = e.currentTarget.getBoundingClientRect();
        if (e.clientX < r.left || e.clientX > r.right || e.clientY < r.top || e.clientY > r.bottom) {
          e.currentTarget.close();
        }
      }
    });
  }

  /* crops load lazily on screen; a printout needs them all */
  window.addEventListener("beforeprint", function () {
    var imgs = document.querySelectorAll("img[loading=lazy]");
    for (var j = 0; j < imgs.length; j++) { imgs[j].loading = "eager"; }
  });

  /* Search (index.html): the index is embedded in the page (a data attribute), so it works from
     file:// with no request. Text is folded as the build folded it (NFKC, lower case);
     a query matches an entry holding every one of its words, as substrings, so Chinese
     needs no word breaking. Results are written with textContent only. */
  var index = document.getElementById("search-index");
  var input = document.getElementById("search-q");
  if (index && input) {
    var entries = JSON.parse(index.getAttribute("data-index") || "[]");
    var list = document.getElementById("search-results");
    var status = document.getElementById("search-status");
    var fold = function (t) { return (t.normalize ? t.normalize("NFKC") : t).toLowerCase(); };
    var run = function () {
      var words = fold(input.value).split(/\s+/).filter(function (w) { return w; });
      while (list.firstChild) { list.removeChild(list.firstChild); }
      if (!words.length) { status.textContent = ""; return; }
      var hits = entries.filter(function (e) {
        return words.every(function (w) { return e.s.indexOf(w) >= 0; });
      });
      status.textContent = hits.length + (hits.length === 1 ? " result" : " results") +
        (hits.length > 50 ? " (the first 50 shown)" : "");
      hits.slice(0, 50).forEach(function (e) {
        var li = document.createElement("li");
        var a = document.createElement("a");
        a.href = e.h;
        a.textContent = (e.k === "entity" ? "Entity " : "") + e.id + " (" + e.r + ")";
        li.appendChild(a);
        li.appendChild(document.createTextNode(e.k === "entity" ? "" : ": " + e.t));
        if (e.q) {
          var q = document.createElement("span");
          q.className = "quote";
          q.textContent = e.q;
          li.appendChild(q);
        }
        list.appendChild(li);
      });
    };
    input.addEventListener("input", run);
    input.form.addEventListener("submit", function (e) { e.preventDefault(); run(); });
    if (input.value) { run(); }
  }

  /* report.html#ev-ID opens that evidence */
  if (location.hash.indexOf("#ev-") === 0) {
    var id = decodeURIComponent(location.hash.slice(4));
    if (dialogFor(id)) { open(id, null); }
  }
})();

// Live standings: the page is complete without this script; with it, the standings table
// follows the API's server-sent event stream. On each `standings` event it takes the table as the
// server draws it (`data-fragment`: the same rows, words and explanations in the page's language)
// and puts it in place of the one shown.
(function () {
  "use strict";
  var table = document.querySelector("table[data-stream]");
  if (!table || !window.EventSource || !window.fetch || !window.DOMParser) { return; }
  var busy = false;
  var again = false;
  function redraw() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(table.dataset.fragment, { credentials: "same-origin" })
      .then(function (answer) { return answer.ok ? answer.text() : Promise.reject(answer.status); })
      .then(function (html) {
        var drawn = new DOMParser().parseFromString(html, "text/html");
        var fresh = drawn.querySelector("table[data-stream]");
        if (!fresh) { return; }
        table.replaceChildren.apply(table, Array.prototype.slice.call(fresh.childNodes));
        var after = document.querySelector("[data-after-round]");
        var freshAfter = drawn.querySelector("[data-after-round]");
        if (after && freshAfter) { after.textContent = freshAfter.textContent; }
      })
      .catch(function () { /* keep the last table */ })
      .then(function () {
        busy = false;
        if (again) { again = false; redraw(); }
      });
  }
  var source = new EventSource(table.dataset.stream);
  source.addEventListener("standings", function (event) {
    try { table.dataset.asOf = JSON.parse(event.data).as_of; } catch (e) { /* no date */ }
    redraw();
  });
  var status = document.querySelector("[data-live]");
  source.onopen = function () { if (status) { status.hidden = false; } };
  source.onerror = function () { if (status) { status.hidden = true; } };
})();

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
  var status = document.querySelector("[data-live]");
  var source = null;
  // The stream's first event is the standings as they are now: a page shown again catches up.
  function open() {
    if (source || document.visibilityState === "hidden") { return; }
    source = new EventSource(table.dataset.stream);
    source.addEventListener("standings", function (event) {
      try { table.dataset.asOf = JSON.parse(event.data).as_of; } catch (e) { /* no date */ }
      redraw();
    });
    source.onopen = function () { if (status) { status.hidden = false; } };
    source.onerror = function () { if (status) { status.hidden = true; } };
  }
  // A page hidden or left lets go of its stream, and takes it again when shown: a browser opens
  // six connections to a server at most, and pages it keeps for the back button would hold
  // theirs until the next page waits for one.
  function close() {
    if (!source) { return; }
    source.close();
    source = null;
    if (status) { status.hidden = true; }
  }
  window.addEventListener("pagehide", close);
  window.addEventListener("pageshow", open);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") { close(); } else { open(); }
  });
  open();
})();

// The console's small improvements. A "print" button where the page has one (the PIN slips).
(function () {
  "use strict";
  document.querySelectorAll("button[data-print]").forEach(function (button) {
    button.hidden = false;
    button.addEventListener("click", function () { window.print(); });
  });
})();

// A page that shows something once (new PINs) is loaded again as the page it names, which says
// it was shown once, instead of sending its form again.
(function () {
  "use strict";
  var shown = document.querySelector("[data-reloads-as]");
  if (shown && window.history && window.history.replaceState) {
    window.history.replaceState(null, "", shown.getAttribute("data-reloads-as"));
  }
})();

// A CSV file chosen for the names' box is read into it, to check before sending.
(function () {
  "use strict";
  document.querySelectorAll("input[type=file][data-fills]").forEach(function (input) {
    var box = document.getElementById(input.getAttribute("data-fills"));
    var label = document.querySelector("label[for='" + input.id + "']");
    if (!box || !window.FileReader) return;
    input.hidden = false;
    if (label) label.hidden = false;
    input.addEventListener("change", function () {
      var file = input.files && input.files[0];
      if (!file) return;
      var reader = new FileReader();
      reader.onload = function () { box.value = String(reader.result); };
      reader.readAsText(file);
    });
  });
})();

// The console's results sheet adds up each player's VP as it is typed, as the paper sheet does:
// settlements 1, cities 2, VP cards 1, longest road 2, largest army 2. Without this script the
// server adds them up when the form is sent.
(function () {
  "use strict";
  var form = document.querySelector("form[data-sheet]");
  if (!form) return;
  function count(name) {
    var input = form.elements[name];
    var n = input ? parseInt(input.value, 10) : 0;
    return isNaN(n) ? 0 : n;
  }
  function holder(name) {
    var picked = form.querySelector('input[name="' + name + '"]:checked');
    return picked ? picked.value : "";
  }
  function addUp() {
    var road = holder("longest_road"), army = holder("largest_army");
    form.querySelectorAll("tr[data-seat]").forEach(function (row) {
      var i = row.getAttribute("data-seat");
      var player = form.elements["player" + i].value;
      var vp = count("settlements" + i) + 2 * count("cities" + i) + count("vp_cards" + i) +
        (player && road === player ? 2 : 0) + (player && army === player ? 2 : 0);
      var out = row.querySelector("output[data-vp]");
      if (out) out.textContent = String(vp);
    });
  }
  form.addEventListener("input", addUp);
  form.addEventListener("change", addUp);
  addUp();
})();

// The round's clock counts down each second while the round runs, from the time left the page
// was drawn with (a reload reads the server's clock again). Without this script the page shows
// the time as read when it was drawn.
(function () {
  "use strict";
  var timers = document.querySelectorAll("[data-left-ms]");
  if (!timers.length) return;
  var drawn = Date.now();
  function shown(ms) {
    var seconds = Math.floor(Math.max(0, ms) / 1000);
    var rest = seconds % 60;
    return Math.floor(seconds / 60) + ":" + (rest < 10 ? "0" : "") + rest;
  }
  function tick() {
    var passed = Date.now() - drawn;
    timers.forEach(function (timer) {
      var left = parseInt(timer.getAttribute("data-left-ms"), 10);
      if (!isNaN(left)) timer.textContent = shown(left - passed);
    });
  }
  window.setInterval(tick, 1000);
})();

// What an action did is said once: taken off the address, so that a reload does not say it again.
(function () {
  "use strict";
  if (!document.querySelector("[data-said]") || !window.history.replaceState) return;
  var url = new URL(window.location.href);
  ["done", "round", "table", "minutes"].forEach(function (name) { url.searchParams.delete(name); });
  window.history.replaceState(window.history.state, "", url.pathname + url.search + url.hash);
})();

// The venue screen's clock: the page shows the clock as read when it was drawn; with this script
// it follows the round's clock stream and counts down on its own. Each reading brings the
// server's time, so the screen's clock is corrected by the difference (a projector's laptop is
// seldom on time) and, should the network drop, keeps counting from the last `ends_at` and says
// it is offline. Red in the last five minutes; at the end of the round (its clock ended, or every
// table's result in: `data-finished`, with or without a clock) the standings replace the tables,
// and the screen looks for the next round, or the round's end, now and then.
(function () {
  "use strict";
  var clock = document.querySelector("[data-clock]");
  var countdown = document.querySelector("[data-countdown]");
  var status = document.querySelector("[data-status]");
  var offline = document.querySelector("[data-offline]");
  var tables = document.querySelector("[data-tables]");
  var standings = document.querySelector("[data-standings]");
  var head = document.querySelector("[data-phase]");
  var finished = !!clock && clock.hasAttribute("data-finished");
  var LATE_MS = 5 * 60 * 1000;
  var WORDS = {
    not_started: "notStarted", running: "running", paused: "paused",
    overtime: "overtime", ended: "ended"
  };

  // The latest reading: its state, when the round's time runs out (server's clock), the time
  // left it read, and the server's clock minus ours.
  var state = null;
  var endsAt = null;
  var leftMs = null;
  var offset = 0;

  function read(reading) {
    state = reading.state;
    endsAt = reading.ends_at ? Date.parse(reading.ends_at) : null;
    leftMs = typeof reading.time_left_ms === "number" ? reading.time_left_ms : null;
    offset = Date.parse(reading.server_time) - Date.now();
    if (reading.tables) { extras(reading.tables); }
  }

  function left() {
    if (state === "overtime" || state === "ended") { return 0; }
    if (state === "running" && endsAt !== null) {
      return Math.max(0, endsAt - (Date.now() + offset));
    }
    return leftMs;
  }

  function text(ms) {
    if (ms === null) { return "–:––"; }
    var seconds = Math.ceil(Math.max(0, ms) / 1000);
    var h = Math.floor(seconds / 3600);
    var m = Math.floor(seconds / 60) % 60;
    var s = seconds % 60;
    var ss = (s < 10 ? "0" : "") + s;
    if (h > 0) { return h + ":" + (m < 10 ? "0" : "") + m + ":" + ss; }
    return m + ":" + ss;
  }

  function extras(readings) {
    readings.forEach(function (table) {
      var span = document.querySelector('[data-extra-of="' + table.table + '"]');
      if (!span) { return; }
      span.textContent = table.extra_minutes > 0
        ? clock.dataset.extra.replace("{n}", String(table.extra_minutes)) : "";
    });
  }

  // The round is over: its clock ended, or every table has its result.
  function over() { return state === "ended" || finished; }

  function tick() {
    var ms = left();
    // Counted down to nothing offline: the round's time is up as far as the room can tell.
    var shown = over() || (state === "running" && ms === 0) ? "ended" : state;
    var display = text(ms);
    if (countdown.textContent !== display) { countdown.textContent = display; }
    // A round played without its clock shows no dash once it is over, nor while its results
    // come in.
    countdown.hidden = (finished || "untimed" in clock.dataset) && ms === null;
    clock.classList.toggle("late",
      !finished && ms !== null && ms < LATE_MS && state !== "not_started");
    clock.dataset.state = state;
    var word = status.dataset[WORDS[shown]];
    if (word !== undefined && status.textContent !== word) { status.textContent = word; }
    if (tables) { tables.hidden = over(); }
    if (standings) { standings.hidden = !over(); }
  }

  function setOffline(yes) { if (offline) { offline.hidden = !yes; } }

  // What the screen shows now, as the page names its phase ("2:play", "2:over", "0:none").
  function phase() {
    var drawn = head ? head.dataset.phase.split(":") : ["0", "none"];
    if (!clock || drawn[1] === "none") { return drawn.join(":"); }
    return drawn[0] + ":" + (over() ? "over" : "play");
  }

  // A new round drawn, or the last result of a round played without its clock, is a new page:
  // look for it every half minute, and draw the page again only when the server's drawing
  // differs from what is shown (never an error page on the projector).
  setInterval(function () {
    if (!head || !window.fetch || !window.DOMParser) { return; }
    fetch(location.href, { cache: "no-store" })
      .then(function (answer) { return answer.ok ? answer.text() : Promise.reject(answer.status); })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html").querySelector("[data-phase]");
        if (fresh && fresh.dataset.phase !== phase()) { location.reload(); }
      })
      .catch(function () { /* offline: keep what is shown */ });
  }, 30 * 1000);

  // A long list (the tables, the standings) scrolls by itself, so that everyone sees his own in
  // turn; unless the viewer asked for less motion. A hidden list has nothing to scroll.
  var still = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  Array.prototype.forEach.call(document.querySelectorAll("[data-scroll]"), function (list) {
    if (still) { return; }
    var waited = 0;
    setInterval(function () {
      if (list.scrollHeight <= list.clientHeight + 1) { return; }
      if (list.scrollTop + list.clientHeight >= list.scrollHeight - 1) {
        // A pause at the bottom, then back to the top.
        waited += 1;
        if (waited > 60) { list.scrollTop = 0; waited = 0; }
        return;
      }
      list.scrollTop += 1;
    }, 50);
  });

  if (!clock || !countdown || !status) { return; }
  read({
    state: clock.dataset.state,
    ends_at: clock.dataset.endsAt,
    time_left_ms: clock.dataset.leftMs === undefined ? null : Number(clock.dataset.leftMs),
    server_time: clock.dataset.serverTime
  });
  tick();
  setInterval(tick, 200);

  // The browser reconnects on its own after a dropped stream; a connection it gave up on (the
  // network down as it retried) is opened again here. Until then the clock counts from the
  // last reading.
  var source = null;
  function connect() {
    if (!window.EventSource || (source && source.readyState !== EventSource.CLOSED)) { return; }
    if (document.visibilityState === "hidden") { return; }
    source = new EventSource(clock.dataset.stream);
    source.addEventListener("clock", function (event) {
      try { read(JSON.parse(event.data)); } catch (e) { return; }
      setOffline(false);
      tick();
    });
    source.onopen = function () { setOffline(false); };
    source.onerror = function () {
      setOffline(true);
      if (source.readyState === EventSource.CLOSED) { setTimeout(connect, 2000); }
    };
  }
  connect();
  // The browser knows it lost the network before the stream does: the stream is closed (what
  // might still come on it is not to be trusted) and opened again with the network.
  window.addEventListener("offline", function () {
    setOffline(true);
    if (source) { source.close(); }
  });
  window.addEventListener("online", connect);
  // A page hidden or left lets go of its stream, and takes it again when shown: a browser opens
  // six connections to a server at most, and pages kept for the back button would hold theirs.
  function letGo() { if (source) { source.close(); } }
  window.addEventListener("pagehide", letGo);
  window.addEventListener("pageshow", connect);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") { letGo(); } else { connect(); }
  });
})();

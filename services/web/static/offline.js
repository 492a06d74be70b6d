// The player's pages through a network drop. Online nothing changes: forms submit as they do
// without this script. It registers the service worker (/sw.js), which keeps the pages marked
// `data-offline-page` for reading offline; on such a page shown from the kept copy, or with the
// network down, it says "offline, as last updated at HH:MM" (the page's `data-updated-at`, in
// UTC as the page's own "Updated" time). A form marked `data-offline-queue` submitted with the
// network down is kept on the phone (offline-store.js) and listed in `[data-offline-waiting]`;
// it is sent when the network is back (the `online` event, the next page load, the service
// worker's `sync`, and a try every half minute while one waits). The words are the page's own,
// from the `#offline-words` block (every language; this page's by `<html lang>`).
(function () {
  "use strict";
  var store = window.CatanOffline;
  var wordsBlock = document.getElementById("offline-words");
  if (!store || !wordsBlock || !("indexedDB" in window) || !("caches" in window)) { return; }
  var allWords = JSON.parse(wordsBlock.textContent);
  var words = allWords[document.documentElement.lang] || allWords.en;
  var main = document.querySelector("main[data-offline-page]");
  var waiting = document.querySelector("[data-offline-waiting]");
  // Writes sent or refused since this page was drawn, by key: still listed here once forgotten
  // on the phone.
  var ended = new Map();
  var RETRY_MS = 30000;
  var controlledAtLoad = "serviceWorker" in navigator && !!navigator.serviceWorker.controller;

  function hhmm(time) {
    var date = new Date(time);
    return isNaN(date.getTime()) ? "" : date.toISOString().slice(11, 16);
  }

  function fill(text, time) {
    return text.replace("{time}", time);
  }

  // --- Reading offline ------------------------------------------------------------------------

  function showOffline() {
    if (!main) { return; }
    var offline = main.hasAttribute("data-offline-kept") || !navigator.onLine;
    var banner = document.querySelector("[data-offline-banner]");
    if (!banner && offline) {
      banner = document.createElement("p");
      banner.className = "found";
      banner.setAttribute("role", "status");
      banner.setAttribute("data-offline-banner", "");
      main.prepend(banner);
    }
    if (banner) {
      banner.textContent = fill(words.banner, hhmm(main.dataset.updatedAt));
      banner.hidden = !offline;
    }
  }

  // Keeps this page (a first visit was not yet seen by the service worker) and the kept pages it
  // leads to (such as the form to report the table's result), for when the network drops.
  function keepForLater() {
    if (!main || main.hasAttribute("data-offline-kept") || !navigator.onLine) { return; }
    var base = location.pathname.replace(/\/$/, "") + "/";
    // A first visit's page came before the service worker: kept from here.
    var urls = controlledAtLoad ? [] : [location.href];
    main.querySelectorAll("a[href]").forEach(function (link) {
      var to = new URL(link.href, location.href);
      if (to.origin === location.origin && to.pathname.indexOf(base) === 0) {
        to.hash = "";
        urls.push(to.href);
      }
    });
    urls.filter(function (url, i) { return urls.indexOf(url) === i; }).forEach(store.fetchAndKeep);
  }

  // --- Writing offline ------------------------------------------------------------------------

  function item(text, state, key) {
    var li = document.createElement("li");
    li.textContent = text;
    li.setAttribute("data-state", state);
    li.setAttribute("data-key", key);
    return li;
  }

  async function showWaiting() {
    if (!waiting) { return; }
    var all = await store.writes();
    all.forEach(function (w) { if (w.state !== "waiting") { ended.set(w.key, w); } });
    var lines = Array.from(ended.values()).map(function (w) {
      var outcome = w.state === "sent" ? words.sent : words.refused;
      return item(w.label + " — " + outcome, w.state, w.key);
    }).concat(all.filter(function (w) { return w.state === "waiting"; }).map(function (w) {
      return item(w.label + " — " + fill(words.waiting_since, hhmm(w.at)), w.state, w.key);
    }));
    var list = waiting.querySelector("ul[data-offline-list]");
    if (!list) {
      list = document.createElement("ul");
      list.setAttribute("data-offline-list", "");
      list.setAttribute("aria-live", "polite");
      waiting.appendChild(list);
    }
    list.replaceChildren.apply(list, lines);
    waiting.hidden = lines.length === 0;
    // A kept copy is drawn anew once the network is back: that page shows the outcomes.
    var shownForGood = !main || !main.hasAttribute("data-offline-kept");
    var forget = all.filter(function (w) { return w.state !== "waiting"; });
    if (shownForGood && forget.length > 0) {
      await store.forgetWrites(forget.map(function (w) { return w.key; }));
    }
  }

  async function send() {
    await store.flush();
    await showWaiting();
  }

  // Whether the server answers at all: the network may be down with the phone still on Wi-Fi.
  async function reachable() {
    if (!navigator.onLine) { return false; }
    try {
      await fetch("/health", { cache: "no-store", signal: AbortSignal.timeout(5000) });
      return true;
    } catch (e) {
      return false;
    }
  }

  async function keep(form, submitter) {
    var data = new FormData(form, submitter);
    var label = form.getAttribute("data-offline-label")
      || (submitter && submitter.textContent.trim()) || form.getAttribute("action");
    await store.keepWrite({
      key: String(data.get("form_key") || crypto.randomUUID()),
      action: form.action,
      body: new URLSearchParams(data).toString(),
      label: label,
      at: Date.now(),
      state: "waiting",
    });
    var registration = await navigator.serviceWorker.ready.catch(function () { return null; });
    if (registration && registration.sync) {
      registration.sync.register(store.SYNC_TAG).catch(function () { /* the timer still tries */ });
    }
    var saved = form.parentNode.querySelector("[data-offline-saved]");
    if (!saved) {
      saved = document.createElement("p");
      saved.className = "found";
      saved.setAttribute("role", "status");
      saved.setAttribute("data-offline-saved", "");
      form.after(saved);
    }
    saved.textContent = words.saved;
    await showWaiting();
  }

  // Forms that passed the check submit as they would without this script.
  var cleared = new WeakSet();
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-offline-queue")) { return; }
    if (cleared.has(form)) {
      cleared.delete(form);
      return;
    }
    event.preventDefault();
    var submitter = event.submitter;
    reachable().then(function (up) {
      if (up) {
        cleared.add(form);
        form.requestSubmit(submitter && submitter.form === form ? submitter : null);
      } else {
        keep(form, submitter);
      }
    });
  });

  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("/sw.js", { scope: "/" })
      .then(function () { return navigator.serviceWorker.ready; })
      .then(keepForLater)
      .catch(function () { /* no offline reading */ });
  }
  if (store.changes) { store.changes.onmessage = showWaiting; }
  window.addEventListener("online", function () {
    showOffline();
    // A page shown from its kept copy is drawn anew once what waited is sent.
    send().then(function () {
      if (main && main.hasAttribute("data-offline-kept")) { location.reload(); }
    });
  });
  window.addEventListener("offline", showOffline);
  setInterval(function () {
    store.writes().then(function (all) {
      if (all.some(function (w) { return w.state === "waiting"; })) { send(); }
    });
  }, RETRY_MS);
  showOffline();
  if (navigator.onLine) { send(); } else { showWaiting(); }
})();

// What the phone keeps for when the venue's network drops, shared by the pages (offline.js) and
// the service worker (sw.js, through importScripts):
// - kept pages: the last good copy of each page marked `data-offline-page`, and the styles,
//   scripts and pictures they use, in Cache Storage;
// - waiting writes: forms sent while offline, in IndexedDB, each {key, action, body, label, at,
//   state}. `key` is the form's key, which the server makes the write's Idempotency-Key: a write
//   sent twice (two tabs, an answer lost on the way back) is made once.
// Both belong to whoever is signed in: the service worker forgets them at sign-out (and the kept
// pages at sign-in), so one person's pages are never shown to the next.
(function (scope) {
  "use strict";
  var KEPT = "catan-kept-v1";
  var DATABASE = "catan-offline";
  var WRITES = "waiting-writes";
  var LOCK = "catan-waiting-writes";
  var SYNC_TAG = "catan-waiting-writes";
  var changes = "BroadcastChannel" in scope ? new BroadcastChannel("catan-offline") : null;

  // --- Kept pages ---------------------------------------------------------------------------

  // Keeps `response` (an answer to `url`) if it is a page marked for offline reading, marked
  // once more as the kept copy (`data-offline-kept`, which the page's script shows as offline);
  // anything else in its place is dropped (a sign-in redirect, a page no longer kept), but for
  // a server's failure (a 5xx), which leaves the last copy.
  async function keepPage(url, response) {
    if (response.status >= 500) { return; }
    var cache = await caches.open(KEPT);
    var type = response.headers.get("content-type") || "";
    var html = response.ok && type.indexOf("text/html") === 0 ? await response.text() : "";
    var marker = /(<main\b[^>]*?\sdata-offline-page)(?=[\s>=])/;
    if (marker.test(html)) {
      var kept = html.replace(marker, "$1 data-offline-kept");
      await cache.put(url, new Response(kept, { headers: { "content-type": type } }));
    } else {
      await cache.delete(url);
    }
  }

  // Fetches the page at `url` and keeps it (see keepPage); a network error keeps what was kept.
  async function fetchAndKeep(url) {
    try {
      var response = await fetch(url, { credentials: "same-origin", redirect: "manual" });
      await keepPage(url, response);
    } catch (e) { /* offline: the last copy stays */ }
  }

  async function keptCopy(url) {
    var cache = await caches.open(KEPT);
    return cache.match(url);
  }

  // Keeps an asset's answer (style, script, picture) as it came.
  async function keepAsset(request, response) {
    if (response.ok && response.type === "basic") {
      var cache = await caches.open(KEPT);
      await cache.put(request, response);
    }
  }

  async function forgetKept(url) {
    var cache = await caches.open(KEPT);
    await cache.delete(url);
  }

  async function forgetAllKept() {
    var names = await caches.keys();
    await Promise.all(names.filter(function (n) { return n.indexOf("catan-kept") === 0; })
      .map(function (n) { return caches.delete(n); }));
  }

  // --- Waiting writes -----------------------------------------------------------------------

  function done(request) {
    return new Promise(function (resolve, reject) {
      request.onsuccess = function () { resolve(request.result); };
      request.onerror = function () { reject(request.error); };
    });
  }

  function openDatabase() {
    var opening = indexedDB.open(DATABASE, 1);
    opening.onupgradeneeded = function () {
      opening.result.createObjectStore(WRITES, { keyPath: "key" });
    };
    return done(opening);
  }

  // Runs `work` on the store in one transaction, answering what it answers once committed.
  async function inTransaction(mode, work) {
    var db = await openDatabase();
    try {
      var transaction = db.transaction(WRITES, mode);
      var committed = new Promise(function (resolve, reject) {
        transaction.oncomplete = resolve;
        transaction.onabort = function () { reject(transaction.error); };
      });
      var result = await work(transaction.objectStore(WRITES));
      await committed;
      return result;
    } finally {
      db.close();
    }
  }

  function announce() {
    if (changes) { changes.postMessage("changed"); }
  }

  // Every write kept, oldest first.
  async function writes() {
    var all = await inTransaction("readonly", function (store) { return done(store.getAll()); });
    return all.sort(function (a, b) { return a.at - b.at; });
  }

  // Keeps a write to send later. The same form sent twice is kept once (its key).
  async function keepWrite(write) {
    await inTransaction("readwrite", function (store) { return done(store.put(write)); });
    announce();
  }

  async function forgetWrites(keys) {
    await inTransaction("readwrite", function (store) {
      return Promise.all(keys.map(function (key) { return done(store.delete(key)); }));
    });
    announce();
  }

  async function forgetAllWrites() {
    await inTransaction("readwrite", function (store) { return done(store.clear()); });
    announce();
  }

  // Sends the waiting writes, oldest first, one tab or worker at a time (a Web Lock), each
  // marked in IndexedDB with its outcome as soon as it has one. Any answer from the server ends
  // a write's wait: `sent`, or `refused` (a 4xx or 5xx, or a session that must sign in again).
  // A network error leaves it and the ones after it waiting. Answers whether none is waiting.
  async function flush() {
    var send = async function () {
      var pending = (await writes()).filter(function (w) { return w.state === "waiting"; });
      for (var i = 0; i < pending.length; i++) {
        var write = pending[i];
        var response;
        try {
          response = await fetch(write.action, {
            method: "POST",
            body: write.body,
            credentials: "same-origin",
            headers: { "content-type": "application/x-www-form-urlencoded" },
          });
        } catch (e) {
          return false;
        }
        var toSignIn = /\/sign-in$/.test(new URL(response.url).pathname);
        write.state = response.ok && !toSignIn ? "sent" : "refused";
        write.status = response.status;
        await keepWrite(write);
      }
      return true;
    };
    return scope.navigator.locks ? scope.navigator.locks.request(LOCK, send) : send();
  }

  scope.CatanOffline = {
    SYNC_TAG: SYNC_TAG,
    changes: changes,
    keepPage: keepPage,
    fetchAndKeep: fetchAndKeep,
    keptCopy: keptCopy,
    keepAsset: keepAsset,
    forgetKept: forgetKept,
    forgetAllKept: forgetAllKept,
    writes: writes,
    keepWrite: keepWrite,
    forgetWrites: forgetWrites,
    forgetAllWrites: forgetAllWrites,
    flush: flush,
  };
})(self);

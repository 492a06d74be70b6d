// The web app's service worker (served at /sw.js for the whole site). It keeps the pages marked
// for offline reading and what they use, network first: online every page is the server's, and
// only when the network fails is the last good copy shown. It sends the writes kept while
// offline when the browser says the network is back (the `sync` event, where supported).
// What it keeps belongs to whoever is signed in: it is forgotten at sign-out and sign-in.
"use strict";
importScripts("/static/offline-store.js");

var store = self.CatanOffline;
// What the kept pages use, kept at once: a page kept without a visit (the form to report a
// table's result) has not loaded it yet.
var ASSETS = ["/static/style.css", "/static/console.js", "/static/offline-store.js",
  "/static/offline.js", "/static/icon.svg", "/manifest.webmanifest"];

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open("catan-kept-v1")
    .then(function (cache) { return cache.addAll(ASSETS); })
    .then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(self.clients.claim());
});

// Network first; the kept copy when the network fails, or the server does (a 5xx).
async function page(event) {
  var request = event.request;
  try {
    var response = await fetch(request);
    if (response.status >= 500) {
      return (await store.keptCopy(request.url)) || response;
    }
    event.waitUntil(store.keepPage(request.url, response.clone()));
    return response;
  } catch (error) {
    var kept = await store.keptCopy(request.url);
    if (kept) { return kept; }
    throw error;
  }
}

async function asset(event) {
  var request = event.request;
  try {
    var response = await fetch(request);
    event.waitUntil(store.keepAsset(request, response.clone()));
    return response;
  } catch (error) {
    var kept = await store.keptCopy(request.url);
    if (kept) { return kept; }
    throw error;
  }
}

// Whoever signs out leaves nothing behind; whoever signs in sees no one else's pages. A form
// posted to a kept page used that copy's form key: the copy goes too.
async function posted(url) {
  if (/\/sign-out$/.test(url.pathname)) {
    await Promise.all([store.forgetAllKept(), store.forgetAllWrites()]);
  } else if (/\/sign-in$/.test(url.pathname)) {
    await store.forgetAllKept();
  } else {
    await store.forgetKept(url.href);
  }
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) { return; }
  if (request.method === "POST") {
    event.waitUntil(posted(url));
  } else if (request.method !== "GET") {
    return;
  } else if (request.mode === "navigate") {
    event.respondWith(page(event));
  } else if (url.pathname.indexOf("/static/") === 0 || url.pathname === "/manifest.webmanifest"
    || request.destination === "image") {
    event.respondWith(asset(event));
  }
});

self.addEventListener("sync", function (event) {
  if (event.tag !== store.SYNC_TAG) { return; }
  event.waitUntil(store.flush().then(function (allSent) {
    // Rejected, the browser tries again later.
    if (!allSent) { throw new Error("the network is still down"); }
  }));
});

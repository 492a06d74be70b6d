// Live standings: the page is complete without this script; with it, the standings table
// follows the API's server-sent event stream and is redrawn on each `standings` event.
(function () {
  "use strict";
  var table = document.querySelector("table[data-stream]");
  if (!table || !window.EventSource) { return; }
  var lang = document.documentElement.lang || "en";
  var locale = lang === "zh-Hans" ? "zh-CN" : lang;
  var decimal = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  var whole = new Intl.NumberFormat(locale);
  var players = table.dataset.playerBase || "/players/";
  var dropped = table.dataset.dropped || "";
  function cell(text, numeric) {
    var td = document.createElement("td");
    if (numeric) { td.className = "num"; }
    td.textContent = text;
    return td;
  }
  function render(standings) {
    var body = table.tBodies[0];
    var rows = document.createDocumentFragment();
    (standings.rows || []).forEach(function (row) {
      var tr = document.createElement("tr");
      tr.dataset.id = row.player_id || row.entry_id;
      tr.appendChild(cell(whole.format(row.rank), true));
      var name = document.createElement("td");
      if (row.player_id) {
        var a = document.createElement("a");
        a.href = players + row.player_id;
        a.textContent = row.name;
        name.appendChild(a);
      } else {
        name.textContent = row.team_name;
      }
      if (row.status && row.status !== "active" && dropped) {
        var tag = document.createElement("span");
        tag.className = "tag";
        tag.textContent = dropped;
        name.appendChild(document.createTextNode(" "));
        name.appendChild(tag);
      }
      tr.appendChild(name);
      if (standings.format === "partner") {
        tr.appendChild(cell(whole.format(row.points), true));
        tr.appendChild(cell(whole.format(row.vp), true));
        tr.appendChild(cell(whole.format(row.vp_against), true));
        tr.appendChild(cell(whole.format(row.games), true));
      } else {
        tr.appendChild(cell(whole.format(row.vp), true));
        tr.appendChild(cell(decimal.format(Number(row.vp_share)), true));
        tr.appendChild(cell(whole.format(row.games), true));
        tr.appendChild(cell(whole.format(row.wins), true));
      }
      rows.appendChild(tr);
    });
    body.replaceChildren(rows);
    var after = document.querySelector("[data-after-round]");
    if (after) { after.textContent = whole.format(standings.after_round); }
    table.dataset.asOf = standings.as_of;
  }
  var source = new EventSource(table.dataset.stream);
  source.addEventListener("standings", function (event) {
    try { render(JSON.parse(event.data)); } catch (e) { /* keep the last table */ }
  });
  var status = document.querySelector("[data-live]");
  source.onopen = function () { if (status) { status.hidden = false; } };
  source.onerror = function () { if (status) { status.hidden = true; } };
})();

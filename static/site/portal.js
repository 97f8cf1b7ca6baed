/* The developer portal's app page: copy buttons for credentials, and the webhook delivery log kept
 * current without a reload (it polls the log's HTML fragment while a delivery is pending). Without
 * JavaScript the page still works: values can be selected by hand and a reload shows the news. */
(function () {
  "use strict";

  function copyText(button) {
    var source = document.getElementById(button.getAttribute("data-copy"));
    if (!source) return;
    var text = source.textContent.trim();
    var done = function () {
      button.textContent = "Copied";
      setTimeout(function () { button.textContent = "Copy"; }, 1500);
    };
    var select = function () {
      var range = document.createRange();
      range.selectNodeContents(source);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      button.textContent = "Press Ctrl+C";
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, select);
    } else {
      select();
    }
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-copy]");
    if (button) copyText(button);
  });
  document.querySelectorAll("[data-copy]").forEach(function (button) { button.hidden = false; });

  var POLL_MS = 2000;
  var timer = null;

  function log() { return document.getElementById("delivery-log"); }
  function isLive(element) { return element && element.getAttribute("data-live") === "true"; }

  function refresh() {
    timer = null;
    var current = log();
    if (!isLive(current)) return;
    if (document.hidden) { schedule(); return; }
    fetch(current.getAttribute("data-poll-url"), {
      credentials: "same-origin",
      headers: { "Accept": "text/html", "X-Requested-With": "fetch" },
      cache: "no-store",
    }).then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.text();
    }).then(function (html) {
      var holder = document.createElement("div");
      holder.innerHTML = html;
      var fresh = holder.querySelector("#delivery-log");
      if (!fresh) return;  // not the fragment (signed out): leave the page as it is
      var now = log();
      // Keep what the reader opened open, and a filter being chosen untouched.
      now.querySelectorAll("details[open]").forEach(function (details) {
        var again = details.id && fresh.querySelector("#" + CSS.escape(details.id));
        if (again) again.open = true;
      });
      var oldList = now.querySelector(".deliveries, .empty");
      var newList = fresh.querySelector(".deliveries, .empty");
      if (oldList && newList) oldList.replaceWith(newList);
      now.setAttribute("data-live", fresh.getAttribute("data-live"));
    }).catch(function () { /* a network blip: try again at the next tick */ })
      .then(schedule);
  }

  function schedule() {
    if (timer === null && isLive(log())) timer = setTimeout(refresh, POLL_MS);
  }

  schedule();
})();

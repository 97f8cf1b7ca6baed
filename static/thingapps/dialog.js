/*
 * Thingyard SDK host, dialog side (spec §4.11): runs inside a dialog page that the host page frames
 * (same origin). Whatever the user picks or cancels is posted to the host as
 * {type: "thingyard:dialog-result", result}; the host hands `result` to the app's callback.
 * The orders checkout (templates/orders/checkout_result.html) posts the same message.
 */
(function () {
  "use strict";
  if (window.parent === window) return;

  function post(result) {
    window.parent.postMessage({ type: "thingyard:dialog-result", result: result }, window.location.origin);
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-result]");
    if (!button) return;
    event.preventDefault();
    try {
      post(JSON.parse(button.getAttribute("data-result")));
    } catch (error) {
      post({ status: "error", error: "The dialog sent an unreadable result.", type: "DIALOG_ERROR" });
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") post({ status: "cancelled" });
  });

  var done = document.getElementById("dialog-result");
  if (done) post(JSON.parse(done.textContent));
})();

/*
 * The example Thing app: uses every function of the Thingyard iframe SDK through the `TV` object that
 * apps written for the original SDK use (see docs/thing-apps.md).
 *
 * The Thing page opens this app at its application URL with launch parameters in the fragment:
 *   https://app.example/?thing_id=42#access_token=…&token_type=bearer&expires_in=86400&thing_id=42
 */
(function () {
  "use strict";

  var launch = TV.launchParams(); // {access_token, token_type, expires_in, thing_id}
  TV.init({ access_token: launch.access_token }); // api_url / target_url default to the SDK's origin

  var results = {}; // action → result, read by the end-to-end tests
  window.exampleResults = results;

  function show(action, result, details) {
    results[action] = result;
    document.getElementById("last-action").textContent = action;
    var pre = document.getElementById("result");
    pre.textContent = JSON.stringify(result, null, 2);
    pre.setAttribute("data-action", action);
    document.getElementById("details").textContent = details ? JSON.stringify(details, null, 2) : "";
    TV.log(action + ": " + JSON.stringify(result));
  }

  function on(id, handler) {
    document.getElementById(id).addEventListener("click", handler);
  }

  document.getElementById("thing-id").textContent = "#" + launch.thing_id;

  // api(): a read-only GET on the REST API with the user's token (CORS from this app's origin).
  TV.api("/users/me", function (user, response) {
    document.getElementById("user").textContent = response.ok ? "for " + user.name : "(" + user.error + ")";
    results.me = user;
  });

  on("echo", function () {
    TV.sendMessage({ cmd: "echo", params: { foo: "bar", n: 1 } }, function (result) {
      show("echo", result);
    });
  });

  on("file-select", function () {
    TV.dialog("file_select", { thing_id: launch.thing_id, extension: "stl" }, function (result) {
      if (result.status !== "ok") return show("file_select", result);
      TV.api("/things/" + result.thing_id + "/files/" + result.file_id, function (file) {
        show("file_select", result, { name: file.name, size: file.size });
      });
    });
  });

  on("thing-select", function () {
    TV.dialog("thing_select", function (result) { // params are optional, as in the original SDK
      if (result.status !== "ok") return show("thing_select", result);
      TV.api("/things/" + result.thing_id, function (thing) {
        show("thing_select", result, { name: thing.name });
      });
    });
  });

  on("thing-search", function () {
    TV.dialog("thing_search", { q: "bracket" }).then(function (result) { // promises work too
      show("thing_search", result);
    });
  });

  on("thing-save", function () {
    var suggested = {
      name: "Awesome Thing",
      description: "Made with the example app.",
      category: "Hobby",
      tags: "iframe, app",
      license: "cc-sa",
      is_published: 0,
      is_wip: 1,
    };
    TV.dialog("thing_save", suggested, function (result) {
      if (result.status !== "ok") return show("thing_save", result);
      // The result's `thing` is the body of POST /things/: api() is read-only, so the app writes itself.
      fetch(TV.opts.api_url + "/things/", {
        method: "POST",
        headers: { Authorization: "Bearer " + TV.opts.access_token, "Content-Type": "application/json" },
        body: JSON.stringify(result.thing),
      })
        .then(function (response) { return response.json(); })
        .then(function (created) { show("thing_save", result, { created_id: created.id, name: created.name }); });
    });
  });

  on("thing-edit", function () {
    TV.dialog("thing_save", { id: launch.thing_id }, function (result) {
      show("thing_edit", result);
    });
  });

  // payment (and address): Thingyard's checkout for this Thing, in this app's name.
  on("buy", function () {
    var charges = [{ name: "Print", amount: "10.00" }, { name: "Shipping", amount: "2.50" }];
    TV.dialog("payment", { amount: "12.50", charges: charges }, function (result) {
      show("payment", result);
    });
  });

  on("api-me", function () {
    TV.api("/users/me", function (user) { show("api_me", { name: user.name, id: user.id }); });
  });

  on("unknown", function () {
    TV.sendMessage({ cmd: "make_coffee", params: {} }, function (result) { show("unknown", result); });
  });
})();

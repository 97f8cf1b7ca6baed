/*
 * The demo app's callback page (apps/demo/pages.py): code → token (POST the token endpoint with the demo
 * app's public credentials) → GET /users/me with the token, each step shown as it happens.
 */
(function () {
  "use strict";
  var root = document.getElementById("demo-callback");
  if (!root) return;
  var data = root.dataset;
  var tokenStep = root.querySelector('[data-step="token"]');
  var meStep = root.querySelector('[data-step="me"]');
  var result = root.querySelector("[data-result]");

  function fail(step, message) {
    step.hidden = false;
    step.classList.add("file-error");
    step.setAttribute("data-state", "failed");
    step.append(" failed: " + message);
  }

  var form = new URLSearchParams({
    grant_type: "authorization_code",
    code: data.code,
    redirect_uri: data.redirectUri,
    client_id: data.clientId,
    client_secret: data.clientSecret,
  });
  // The token endpoint answers form-encoded unless asked for JSON (compat with the original API).
  fetch(data.tokenUrl, { method: "POST", body: form, headers: { Accept: "application/json" }, credentials: "omit" })
    .then(function (response) {
      return response.json().then(function (body) { return { ok: response.ok, body: body }; });
    })
    .then(function (answer) {
      if (!answer.ok || !answer.body.access_token) {
        fail(tokenStep, answer.body.error_description || answer.body.error || "no token");
        return;
      }
      tokenStep.setAttribute("data-state", "done");
      tokenStep.textContent = "Access token received (" + answer.body.scope + "), valid " +
        Math.round(answer.body.expires_in / 86400) + " days.";
      meStep.hidden = false;
      return fetch(data.meUrl, { headers: { Authorization: "Bearer " + answer.body.access_token }, credentials: "omit" })
        .then(function (response) {
          return response.json().then(function (body) {
            if (!response.ok) { fail(meStep, body.error || String(response.status)); return; }
            meStep.setAttribute("data-state", "done");
            meStep.textContent = "GET /users/me with the token answered: you are " + body.name + ".";
            result.hidden = false;
            result.textContent = JSON.stringify(body, null, 2);
          });
        });
    })
    .catch(function (error) { fail(tokenStep, error.message); });
})();

/*
 * Thingyard SDK host (spec §4.11), on the Thing page: opens a Thing app in a sandboxed iframe with
 * its access token, answers the app's messages (echo, the dialogs) and shows the dialogs as modals.
 *
 * Security: only messages whose source is the app's own iframe window AND whose origin is exactly the
 * app's registered origin are read (`fromApp`); each must carry a token of that app for the signed-in
 * user (the one the host issued, or one the server confirms), or no token at all (`tokenCheck`: older
 * SDK builds send `access_code`, undefined when the app was initialised with `access_token`; the
 * window and origin already prove who is talking). A message with any other token is ignored. Replies
 * go to that origin only. Dialog pages are served by the site itself and answer from the site's origin.
 *
 * The pure part (`protocol`) is unit-tested in Node (static/sdk/tests/host.test.js).
 */
(function (root, factory) {
  "use strict";
  var host = factory();
  if (typeof module === "object" && module && module.exports) module.exports = host;
  if (root && root.document && typeof root.addEventListener === "function") {
    root.ThingyardHost = host;
    var start = function () {
      var section = root.document.getElementById("thing-apps");
      if (section) root.ThingyardHost.instance = host.mount(section, root);
    };
    if (root.document.readyState === "loading") root.document.addEventListener("DOMContentLoaded", start);
    else start();
  }
})(typeof globalThis !== "undefined" ? globalThis : this, function () {
  "use strict";

  var DIALOG_RESULT = "thingyard:dialog-result";
  var TRANSPORT_KEYS = ["access_token", "access_code", "callback"];
  var TITLES = {
    file_select: "Select a file",
    thing_select: "Select a Thing",
    thing_search: "Find a Thing",
    thing_save: "Save a Thing",
    payment: "Checkout",
    address: "Shipping address",
  };
  var THING_SAVE_FIELDS = ["id", "name", "description", "category", "tags", "license", "is_published", "is_wip"];

  // --- protocol: pure functions, no DOM ----------------------------------------------------------

  function isObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
  }

  function errorResult(type, message) {
    return { status: "error", error: message, type: type };
  }

  /** An app message: the JSON string {cmd, params{…, access_token, callback}}; null if unreadable. */
  function parseMessage(data) {
    if (typeof data !== "string" || data.length > 1000000) return null;
    var message;
    try {
      message = JSON.parse(data);
    } catch (error) {
      return null;
    }
    if (!isObject(message)) return null;
    var params = isObject(message.params) ? message.params : {};
    if (typeof params.callback !== "string" || !params.callback || params.callback.length > 200) return null;
    return {
      cmd: typeof message.cmd === "string" ? message.cmd : "",
      params: params,
      callback: params.callback,
      token: messageToken(params),
    };
  }

  /**
   * The token a message carries: `access_token`, else the original SDK's `access_code`; null when it
   * carries none at all (both absent, undefined or null); "" when it carries something that is not a
   * token (a number, an object), which matches no token.
   */
  function messageToken(params) {
    var carried = [params.access_token, params.access_code].filter(function (value) {
      return value !== undefined && value !== null;
    });
    if (!carried.length) return null;
    return typeof carried[0] === "string" ? carried[0] : "";
  }

  /**
   * What the host does with a message from the mounted app (fromApp already checked): "accept" (the
   * token the host issued, or no token at all), "verify" (another token string: ask the server whether
   * it is this app's token for this user), or "ignore" (an empty or malformed token).
   */
  function tokenCheck(token, issuedToken) {
    if (token === null) return "accept";
    if (typeof token !== "string" || !token) return "ignore";
    return token === issuedToken ? "accept" : "verify";
  }

  /** Whether a message event comes from the mounted app: its iframe's exact window and exact origin. */
  function fromApp(event, appWindow, appOrigin) {
    return !!appWindow && !!appOrigin && event.source === appWindow && event.origin === appOrigin;
  }

  /** The app's own params, without what the SDK adds for transport (echo answers these). */
  function appParams(params) {
    var result = {};
    Object.keys(params).forEach(function (key) {
      if (TRANSPORT_KEYS.indexOf(key) < 0) result[key] = params[key];
    });
    return result;
  }

  function positiveId(value) {
    var text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
    return /^[1-9]\d{0,17}$/.test(text) ? text : null;
  }

  function text(value) {
    if (value === undefined || value === null) return null;
    if (typeof value === "boolean") return value ? "1" : "0";
    if (Array.isArray(value)) return value.map(String).join(", ");
    if (typeof value === "object") return null;
    return String(value);
  }

  function query(params) {
    return Object.keys(params)
      .filter(function (key) { return params[key] !== null && params[key] !== undefined; })
      .map(function (key) { return encodeURIComponent(key) + "=" + encodeURIComponent(params[key]); })
      .join("&");
  }

  /**
   * What to open for a dialog command: {ok: true, title, method, url, fields} or {ok: false, result}
   * (bad parameters are answered at once, without a modal). `context`: {dialogUrl, checkoutUrl,
   * thingId, clientId}.
   */
  function dialogRequest(cmd, params, context) {
    var base = context.dialogUrl + cmd;
    var open = function (method, url, fields) {
      return { ok: true, title: TITLES[cmd], method: method, url: url, fields: fields || null };
    };
    if (cmd === "file_select") {
      var thingId = positiveId(params.thing_id);
      if (!thingId) return { ok: false, result: errorResult("INVALID_PARAMS", "file_select needs thing_id (a number).") };
      return open("GET", base + "?" + query({ thing_id: thingId, extension: text(params.extension) }));
    }
    if (cmd === "thing_select") {
      return open("GET", base + (typeof params.filter === "string" ? "?" + query({ filter: params.filter }) : ""));
    }
    if (cmd === "thing_search") {
      var q = text(params.q);
      return open("GET", base + (q ? "?" + query({ q: q.slice(0, 200) }) : ""));
    }
    if (cmd === "thing_save") {
      if (params.id !== undefined && params.id !== null && params.id !== "" && !positiveId(params.id)) {
        return { ok: false, result: errorResult("INVALID_PARAMS", "thing_save: id must be a Thing id (a number).") };
      }
      // Posted, not put in the URL: a description can be far longer than a URL may be.
      var fields = { step: "prefill" };
      THING_SAVE_FIELDS.forEach(function (key) {
        var value = text(params[key]);
        if (value !== null) fields[key] = value;
      });
      return open("POST", base, fields);
    }
    if (cmd === "payment" || cmd === "address") {
      var amount = text(params.amount);
      if (!amount) return { ok: false, result: errorResult("INVALID_PARAMS", cmd + " needs an amount.") };
      var charges = params.charges === undefined || params.charges === null ? null
        : typeof params.charges === "string" ? params.charges : JSON.stringify(params.charges);
      return open("GET", context.checkoutUrl + "?" + query({
        thing_id: positiveId(params.thing_id) || context.thingId,
        client_id: context.clientId,
        amount: amount,
        charges: charges,
      }));
    }
    return null;
  }

  var protocol = {
    DIALOG_RESULT: DIALOG_RESULT,
    parseMessage: parseMessage,
    tokenCheck: tokenCheck,
    fromApp: fromApp,
    appParams: appParams,
    errorResult: errorResult,
    dialogRequest: dialogRequest,
    isDialog: function (cmd) { return Object.prototype.hasOwnProperty.call(TITLES, cmd); },
  };

  // --- the page --------------------------------------------------------------------------------------

  function mount(section, win) {
    var doc = win.document;
    var config = section.dataset;
    var mountBox = section.querySelector(".thing-app-mount");
    var modal = section.querySelector(".thing-app-dialog");
    var app = null; // {clientId, name, origin, token, frame, verified}
    var pending = null; // the open dialog: {app, callback, frame}
    var dialogCount = 0;

    function post(url, body) {
      return win.fetch(url, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": config.csrfToken },
        body: JSON.stringify(body),
      });
    }

    function warn(message) {
      if (win.console) win.console.warn("[Thingyard host] " + message);
    }

    function setAppParam(clientId) {
      if (!win.history || !win.history.replaceState) return;
      var url = new win.URL(win.location.href);
      if (clientId) url.searchParams.set("app", clientId);
      else url.searchParams.delete("app");
      win.history.replaceState(win.history.state, "", url.toString());
    }

    function launch(clientId) {
      return post(config.launchUrl, { client_id: clientId, thing_id: Number(config.thingId) })
        .then(function (response) {
          if (response.status === 401) {
            win.location.assign("/login/?next=" + encodeURIComponent(win.location.pathname + "?app=" + clientId));
            return null;
          }
          return response.json().then(function (data) {
            if (!response.ok) throw new Error(data.error || "The app could not be opened.");
            if (data.status === "authorization_required") {
              win.location.assign(data.authorize_url);
              return null;
            }
            openApp(data);
            return data;
          });
        })
        .catch(function (error) {
          warn(error.message);
        });
    }

    function openApp(data) {
      // Never sandbox a document of our own origin: allow-scripts + allow-same-origin would undo it.
      if (!data.origin || data.origin === win.location.origin) {
        warn("Refusing to embed an app served from this site's origin.");
        return;
      }
      closeApp();
      var frame = doc.createElement("iframe");
      frame.setAttribute("sandbox", data.sandbox);
      frame.setAttribute("title", data.name);
      frame.setAttribute("allow", "");
      frame.className = "thing-app-frame";
      frame.src = data.src;
      app = {
        clientId: data.client_id,
        name: data.name,
        origin: data.origin,
        token: data.access_token,
        frame: frame,
        verified: {},
      };
      mountBox.querySelector(".thing-app-name").textContent = data.name;
      mountBox.querySelector(".thing-app-origin").textContent = data.origin;
      mountBox.appendChild(frame);
      mountBox.hidden = false;
      // The app the user just opened is where they look next (and an offscreen frame is throttled).
      if (typeof mountBox.scrollIntoView === "function") mountBox.scrollIntoView({ block: "start" });
      setAppParam(data.client_id);
    }

    function closeApp() {
      if (pending) closeDialog();
      if (app) app.frame.remove();
      app = null;
      mountBox.hidden = true;
    }

    function reply(target, callback, result) {
      // Only to the app still mounted, and only to its origin.
      if (app !== target || !app.frame.contentWindow) return;
      app.frame.contentWindow.postMessage(JSON.stringify({ callback: callback, result: result }), app.origin);
    }

    function tokenIsValid(target, token) {
      var check = protocol.tokenCheck(token, target.token);
      if (check !== "verify") return Promise.resolve(check === "accept");
      if (Object.prototype.hasOwnProperty.call(target.verified, token)) {
        return Promise.resolve(target.verified[token]);
      }
      return post(config.verifyUrl, { client_id: target.clientId, access_token: token })
        .then(function (response) { return response.ok ? response.json() : { valid: false }; })
        .then(function (data) {
          target.verified[token] = data.valid === true;
          return target.verified[token];
        })
        .catch(function () { return false; });
    }

    function handleAppMessage(target, data) {
      var message = protocol.parseMessage(data);
      if (!message) {
        warn("Ignored a message that is not {cmd, params{callback, access_token}} JSON.");
        return;
      }
      tokenIsValid(target, message.token).then(function (valid) {
        if (app !== target) return;
        if (!valid) {
          warn("Ignored a message whose access_token is not this app's token for you (send none, or this one).");
          return;
        }
        dispatch(target, message);
      });
    }

    function dispatch(target, message) {
      if (message.cmd === "echo") {
        reply(target, message.callback, protocol.appParams(message.params));
        return;
      }
      if (!protocol.isDialog(message.cmd)) {
        reply(target, message.callback, protocol.errorResult("UNKNOWN_COMMAND", 'Unknown command "' + message.cmd + '".'));
        return;
      }
      if (pending) {
        reply(target, message.callback, protocol.errorResult("DIALOG_OPEN", "Another dialog is already open."));
        return;
      }
      var request = protocol.dialogRequest(message.cmd, message.params, {
        dialogUrl: config.dialogUrl,
        checkoutUrl: config.checkoutUrl,
        thingId: config.thingId,
        clientId: target.clientId,
      });
      if (!request.ok) {
        reply(target, message.callback, request.result);
        return;
      }
      openDialog(target, message.callback, message.cmd, request);
    }

    function openDialog(target, callback, cmd, request) {
      dialogCount += 1;
      var frame = doc.createElement("iframe");
      frame.name = "thing-app-dialog-" + dialogCount;
      frame.title = request.title;
      // The bar names the app asking, the page inside says what for.
      modal.querySelector("#thing-app-dialog-title").textContent = target.name + " asks";
      modal.setAttribute("data-dialog", cmd);
      modal.appendChild(frame);
      pending = { app: target, callback: callback, frame: frame };
      if (request.method === "POST") {
        var form = doc.createElement("form");
        form.method = "post";
        form.action = request.url;
        form.target = frame.name;
        form.hidden = true;
        var fields = Object.assign({ csrfmiddlewaretoken: config.csrfToken }, request.fields);
        Object.keys(fields).forEach(function (key) {
          var input = doc.createElement("input");
          input.type = "hidden";
          input.name = key;
          input.value = fields[key];
          form.appendChild(input);
        });
        section.appendChild(form);
        form.submit();
        form.remove();
      } else {
        frame.src = request.url;
      }
      if (!modal.open) modal.showModal();
    }

    function closeDialog() {
      var done = pending;
      pending = null;
      if (done) done.frame.remove();
      modal.removeAttribute("data-dialog");
      if (modal.open) modal.close();
      return done;
    }

    function finishDialog(result) {
      var done = closeDialog();
      if (done) reply(done.app, done.callback, isObject(result) ? result : { status: "cancelled" });
    }

    win.addEventListener("message", function (event) {
      if (pending && event.source === pending.frame.contentWindow) {
        if (event.origin !== win.location.origin) return;
        if (isObject(event.data) && event.data.type === DIALOG_RESULT) finishDialog(event.data.result);
        return;
      }
      if (app && protocol.fromApp(event, app.frame.contentWindow, app.origin)) {
        handleAppMessage(app, event.data);
      }
      // Anything else (another window, another origin) is ignored.
    });

    modal.addEventListener("cancel", function (event) {
      event.preventDefault();
      finishDialog({ status: "cancelled" });
    });
    modal.querySelector(".thing-app-dialog-close").addEventListener("click", function () {
      finishDialog({ status: "cancelled" });
    });
    mountBox.querySelector(".thing-app-close").addEventListener("click", function () {
      closeApp();
      setAppParam(null);
    });
    section.querySelectorAll(".thing-app-open").forEach(function (button) {
      button.addEventListener("click", function () { launch(button.getAttribute("data-client-id")); });
    });

    var requested = new win.URL(win.location.href).searchParams.get("app");
    if (requested) {
      var known = Array.prototype.some.call(section.querySelectorAll(".thing-app-open"), function (button) {
        return button.getAttribute("data-client-id") === requested;
      });
      if (known) launch(requested);
    }

    return { launch: launch, closeApp: closeApp, current: function () { return app; } };
  }

  return { protocol: protocol, mount: mount };
});

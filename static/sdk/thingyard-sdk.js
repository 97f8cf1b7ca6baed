/*!
 * Thingyard iframe SDK (spec §4.11), for Thing apps running in a Thing page's iframe.
 *
 *   <script src="https://thingyard.example/static/sdk/thingyard-sdk.js"></script>
 *   import TV from "https://thingyard.example/static/sdk/thingyard-sdk.mjs";
 *
 * No dependency. Exposes `Thingyard` and, for apps written for the original SDK, the same object as
 * `TV`: init(options), sendMessage(message, callback), dialog(name, params, callback),
 * api(endpoint, params, callback), log(message), launchParams().
 *
 * Wire format (compatible with the original SDK): the app posts a JSON string {cmd, params} to the
 * host, `params` carrying `access_token` and a `callback` id; the host answers the JSON string
 * {callback, result}. Both sides check the other's origin exactly. Docs: /developers/docs/thing-apps
 */
(function (root, factory) {
  "use strict";
  var module_ = factory();
  var win = root && root.window === root && typeof root.postMessage === "function" ? root : null;
  if (typeof module === "object" && module && module.exports) {
    module.exports = module_;
  }
  // Loaded twice (a <script> tag and the ES module build), the page keeps its first instance.
  if (win && !win.Thingyard) {
    var sdk = module_.create({ window: win, scriptOrigin: module_.currentScriptOrigin(win.document) });
    win.Thingyard = sdk;
    if (!win.TV) win.TV = sdk;
  }
})(typeof globalThis !== "undefined" ? globalThis : this, function () {
  "use strict";

  var VERSION = "1.0.0";

  function originOf(url) {
    var parsed;
    try {
      parsed = new URL(String(url));
    } catch (error) {
      return null;
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
    return parsed.origin;
  }

  function currentScriptOrigin(document) {
    var script = document && document.currentScript;
    return script && script.src ? originOf(script.src) : null;
  }

  function isObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
  }

  function copy(object) {
    var result = {};
    for (var key in object) {
      if (Object.prototype.hasOwnProperty.call(object, key)) result[key] = object[key];
    }
    return result;
  }

  function parseLink(header) {
    // RFC 8288 as the API sends it: <url>; rel="next", <url>; rel="last"
    var links = {};
    if (!header) return links;
    header.split(",").forEach(function (part) {
      var match = /<([^>]*)>\s*;\s*rel="?([^";]+)"?/.exec(part);
      if (match) links[match[2]] = match[1];
    });
    return links;
  }

  function parseFragment(hash) {
    var values = {};
    String(hash || "").replace(/^#/, "").split("&").forEach(function (pair) {
      if (!pair) return;
      var index = pair.indexOf("=");
      var key = decodeURIComponent((index < 0 ? pair : pair.slice(0, index)).replace(/\+/g, " "));
      var value = index < 0 ? "" : decodeURIComponent(pair.slice(index + 1).replace(/\+/g, " "));
      values[key] = value;
    });
    ["thing_id", "expires_in"].forEach(function (key) {
      if (key in values && /^\d+$/.test(values[key])) values[key] = Number(values[key]);
    });
    return values;
  }

  /**
   * A new SDK instance. `env`: {window, fetch, console, scriptOrigin}; the page's own instance uses
   * the browser's; tests pass fakes.
   */
  function create(env) {
    env = env || {};
    var win = env.window;
    var fetchImpl = env.fetch || (win && win.fetch ? win.fetch.bind(win) : null);
    var logger = env.console || (typeof console !== "undefined" ? console : null);
    var scriptOrigin = env.scriptOrigin || null;
    var state = { opts: null, targetOrigin: null, apiOrigin: null, callbacks: {}, listening: false, counter: 0 };
    var self = { VERSION: VERSION };

    function log(message) {
      if (logger && logger.log) logger.log("[APP] " + message);
    }

    function guid() {
      var random = "";
      var crypto = win && win.crypto;
      if (crypto && crypto.getRandomValues) {
        var bytes = new Uint32Array(2);
        crypto.getRandomValues(bytes);
        random = bytes[0].toString(16) + bytes[1].toString(16);
      } else {
        random = Math.floor(Math.random() * 0x7fffffff).toString(16);
      }
      state.counter += 1;
      return "f" + random + state.counter.toString(16);
    }

    function requireInit() {
      if (!state.opts) throw new Error("Thingyard SDK: call init({access_token: …}) first.");
    }

    function receive(event) {
      if (!state.opts) return;
      // Exact origin and the very window we talk to: anything else is not the host.
      if (event.origin !== state.targetOrigin || event.source !== state.opts.target) return;
      if (typeof event.data !== "string") return;
      var message;
      try {
        message = JSON.parse(event.data);
      } catch (error) {
        return;
      }
      if (!isObject(message) || typeof message.callback !== "string") return;
      var pending = state.callbacks[message.callback];
      if (!pending) {
        log('Received Unknown Callback: "' + message.callback + '"');
        return;
      }
      delete state.callbacks[message.callback];
      pending(message.result);
    }

    function init(options) {
      if (!isObject(options) || typeof options.access_token !== "string" || !options.access_token) {
        throw new TypeError("Thingyard SDK: init needs options.access_token (a string).");
      }
      // spec §4.11 defaults: api_url {base_url}, target_url {site_url}, target the parent window. The
      // SDK is served by the site, so both default to the origin this script was loaded from.
      var apiUrl = options.api_url || scriptOrigin;
      var targetUrl = options.target_url || scriptOrigin;
      if (!apiUrl || !targetUrl) {
        throw new Error("Thingyard SDK: pass api_url and target_url (this copy was not loaded from Thingyard).");
      }
      var targetOrigin = originOf(targetUrl);
      var apiOrigin = originOf(apiUrl);
      if (!targetOrigin) throw new TypeError("Thingyard SDK: target_url must be an http(s) URL.");
      if (!apiOrigin) throw new TypeError("Thingyard SDK: api_url must be an http(s) URL.");
      var target = options.target || (win && win.parent);
      if (!target || typeof target.postMessage !== "function") {
        throw new TypeError("Thingyard SDK: target must be a window.");
      }
      state.opts = {
        access_token: options.access_token,
        api_url: String(apiUrl).replace(/\/+$/, ""),
        target_url: targetUrl,
        target: target,
      };
      state.targetOrigin = targetOrigin;
      state.apiOrigin = apiOrigin;
      self.opts = state.opts;
      if (win && !state.listening) {
        win.addEventListener("message", receive, false);
        state.listening = true;
      }
      if (win && target === win) log("Not inside a frame: messages will not reach Thingyard.");
      return self;
    }

    function sendMessage(message, callback) {
      requireInit();
      if (!isObject(message) || typeof message.cmd !== "string" || !message.cmd) {
        throw new TypeError("Thingyard SDK: sendMessage needs a message {cmd, params}.");
      }
      if (message.params !== undefined && message.params !== null && !isObject(message.params)) {
        throw new TypeError("Thingyard SDK: message.params must be an object.");
      }
      var params = copy(message.params || {});
      var id = guid();
      params.access_token = state.opts.access_token;
      params.callback = id;
      var text = JSON.stringify({ cmd: message.cmd, params: params });
      var settle;
      var promise = typeof Promise === "function" ? new Promise(function (resolve) { settle = resolve; }) : null;
      state.callbacks[id] = function (result) {
        if (settle) settle(result);
        if (typeof callback === "function") callback(result);
      };
      state.opts.target.postMessage(text, state.targetOrigin);
      return promise;
    }

    function dialog(name, params, callback) {
      if (typeof params === "function") {
        callback = params;
        params = {};
      }
      if (typeof name !== "string" || !name) throw new TypeError("Thingyard SDK: dialog needs a dialog name.");
      return sendMessage({ cmd: name, params: params || {} }, callback);
    }

    function apiRequestUrl(endpoint, params) {
      var text = String(endpoint == null ? "" : endpoint);
      var url = /^https?:\/\//i.test(text) ? text : state.opts.api_url + (text.charAt(0) === "/" ? "" : "/") + text;
      var parsed = new URL(url);
      if (parsed.origin !== state.apiOrigin) return null;
      if (isObject(params)) {
        Object.keys(params).forEach(function (key) {
          if (key !== "method" && params[key] !== undefined && params[key] !== null) {
            parsed.searchParams.set(key, String(params[key]));
          }
        });
      }
      return parsed.toString();
    }

    function api(endpoint, params, callback) {
      if (typeof params === "function") {
        callback = params;
        params = undefined;
      }
      requireInit();
      var failure = null;
      var url = null;
      if (isObject(params) && params.method && String(params.method).toUpperCase() !== "GET") {
        failure = { error: "api() is read-only: GET only.", code: 0, type: "METHOD_NOT_ALLOWED" };
      } else {
        try {
          url = apiRequestUrl(endpoint, params);
        } catch (error) {
          url = null;
        }
        if (url === null) {
          // The token goes to the API only, never to a URL of another origin.
          failure = { error: "api() calls the API at " + state.opts.api_url + " only.", code: 0, type: "FOREIGN_URL" };
        }
      }
      if (!failure && !fetchImpl) {
        failure = { error: "This browser cannot make API requests (no fetch).", code: 0, type: "NO_FETCH" };
      }

      function deliver(data, meta) {
        if (typeof callback === "function") callback(data, meta);
        if (meta.ok || typeof callback === "function") return data;
        var error = new Error((data && data.error) || "API request failed");
        error.status = meta.status;
        error.data = data;
        throw error;
      }

      if (failure) {
        var meta = { ok: false, status: 0, links: {} };
        return Promise.resolve().then(function () { return deliver(failure, meta); });
      }
      return fetchImpl(url, {
        method: "GET",
        headers: { Authorization: "Bearer " + state.opts.access_token, Accept: "application/json" },
        mode: "cors",
        credentials: "omit",
        cache: "no-store",
      }).then(
        function (response) {
          return response.text().then(function (text) {
            var data;
            try {
              data = text ? JSON.parse(text) : null;
            } catch (error) {
              data = text;
            }
            var headers = response.headers;
            var meta = {
              ok: response.ok,
              status: response.status,
              links: parseLink(headers && headers.get ? headers.get("Link") : null),
              rateLimitRemaining: headers && headers.get ? headers.get("X-RateLimit-Remaining") : null,
            };
            if (!response.ok && !isObject(data)) {
              data = { error: typeof data === "string" && data ? data : "HTTP " + response.status, code: response.status };
            }
            return deliver(data, meta);
          });
        },
        function () {
          return deliver(
            { error: "The API could not be reached.", code: 0, type: "NETWORK_ERROR" },
            { ok: false, status: 0, links: {} }
          );
        }
      );
    }

    function launchParams() {
      return parseFragment(win && win.location ? win.location.hash : "");
    }

    self.init = init;
    self.sendMessage = sendMessage;
    self.dialog = dialog;
    self.api = api;
    self.log = log;
    self.guid = guid;
    self.launchParams = launchParams;
    self.opts = null;
    self.callbacks = state.callbacks;
    // The ES module build (thingyard-sdk.mjs) tells a module-loaded copy where it came from.
    self._setScriptOrigin = function (origin) {
      if (!scriptOrigin) scriptOrigin = originOf(origin);
    };
    return self;
  }

  return {
    VERSION: VERSION,
    create: create,
    currentScriptOrigin: currentScriptOrigin,
    originOf: originOf,
    parseFragment: parseFragment,
    parseLink: parseLink,
  };
});

// Unit tests of the iframe SDK's message handling: `node --test static/sdk/tests/`
// (run by apps/thingapps/tests/test_js.py, so `make test` covers them).
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const SDK = require(path.join(__dirname, "..", "thingyard-sdk.js"));

const SITE = "https://thingyard.example";
const TOKEN = "0123456789abcdef0123456789abcdef";

/** A window with what the SDK uses: postMessage, addEventListener, location, crypto. */
function fakeWindow({ hash = "" } = {}) {
  const listeners = [];
  const parent = {
    sent: [],
    postMessage(data, targetOrigin) {
      this.sent.push({ data, targetOrigin });
    },
  };
  const win = {
    parent,
    location: { hash },
    crypto: globalThis.crypto,
    addEventListener(type, fn) {
      if (type === "message") listeners.push(fn);
    },
    postMessage() {},
    deliver(event) {
      listeners.forEach((fn) => fn(event));
    },
    listenerCount: () => listeners.length,
  };
  return win;
}

function setup(options = {}) {
  const win = fakeWindow(options);
  const logged = [];
  const sdk = SDK.create({
    window: win,
    scriptOrigin: SITE,
    fetch: options.fetch,
    console: { log: (line) => logged.push(line) },
  });
  return { sdk, win, logged };
}

function lastSent(win) {
  const { data, targetOrigin } = win.parent.sent[win.parent.sent.length - 1];
  return { message: JSON.parse(data), raw: data, targetOrigin };
}

function answer(win, callback, result, { origin = SITE, source = win.parent } = {}) {
  win.deliver({ origin, source, data: JSON.stringify({ callback, result }) });
}

test("init needs an access token", () => {
  const { sdk } = setup();
  assert.throws(() => sdk.init(), TypeError);
  assert.throws(() => sdk.init({}), /access_token/);
  assert.throws(() => sdk.init({ access_token: 42 }), TypeError);
});

test("init defaults api_url and target_url to the SDK's origin and target to the parent", () => {
  const { sdk, win } = setup();
  sdk.init({ access_token: TOKEN });
  assert.equal(sdk.opts.api_url, SITE);
  assert.equal(sdk.opts.target_url, SITE);
  assert.equal(sdk.opts.target, win.parent);
});

test("init takes the spec's options and rejects URLs that are not http(s)", () => {
  const { sdk } = setup();
  const target = { postMessage() {} };
  sdk.init({ access_token: TOKEN, api_url: "https://api.example/", target_url: "https://site.example/x", target });
  assert.equal(sdk.opts.api_url, "https://api.example");
  assert.equal(sdk.opts.target, target);
  assert.throws(() => sdk.init({ access_token: TOKEN, target_url: "javascript:alert(1)" }), /target_url/);
  assert.throws(() => sdk.init({ access_token: TOKEN, api_url: "ftp://x" }), /api_url/);
});

test("a copy not loaded from Thingyard must be told where Thingyard is", () => {
  const sdk = SDK.create({ window: fakeWindow(), console: { log() {} } });
  assert.throws(() => sdk.init({ access_token: TOKEN }), /api_url and target_url/);
});

test("init installs one message listener however often it is called", () => {
  const { sdk, win } = setup();
  sdk.init({ access_token: TOKEN });
  sdk.init({ access_token: TOKEN });
  assert.equal(win.listenerCount(), 1);
});

test("sendMessage needs init first", () => {
  const { sdk } = setup();
  assert.throws(() => sdk.sendMessage({ cmd: "echo", params: {} }, () => {}), /init/);
});

test("sendMessage posts a JSON string {cmd, params} with access_token and a callback id, to the target origin only", () => {
  const { sdk, win } = setup();
  sdk.init({ access_token: TOKEN, target_url: SITE + "/thing:1" });
  const params = { foo: "bar" };
  sdk.sendMessage({ cmd: "echo", params }, () => {});
  const { message, raw, targetOrigin } = lastSent(win);
  assert.equal(typeof raw, "string");
  assert.equal(targetOrigin, SITE);
  assert.equal(message.cmd, "echo");
  assert.equal(message.params.foo, "bar");
  assert.equal(message.params.access_token, TOKEN);
  assert.match(message.params.callback, /^f[0-9a-f]+$/);
  assert.deepEqual(params, { foo: "bar" }, "the caller's params are not changed");
});

test("the host's answer reaches the callback once, and the promise too", async () => {
  const { sdk, win } = setup();
  sdk.init({ access_token: TOKEN });
  const seen = [];
  const promise = sdk.sendMessage({ cmd: "echo", params: { a: 1 } }, (result) => seen.push(result));
  const { message } = lastSent(win);
  answer(win, message.params.callback, { a: 1 });
  answer(win, message.params.callback, { a: 2 });
  assert.deepEqual(seen, [{ a: 1 }]);
  assert.deepEqual(await promise, { a: 1 });
});

test("each message gets its own callback id", () => {
  const { sdk, win } = setup();
  sdk.init({ access_token: TOKEN });
  const got = [];
  sdk.sendMessage({ cmd: "echo", params: {} }, (r) => got.push(["first", r]));
  const first = lastSent(win).message.params.callback;
  sdk.sendMessage({ cmd: "echo", params: {} }, (r) => got.push(["second", r]));
  const second = lastSent(win).message.params.callback;
  assert.notEqual(first, second);
  answer(win, second, 2);
  answer(win, first, 1);
  assert.deepEqual(got, [["second", 2], ["first", 1]]);
});

test("answers from another origin, another window or in another shape are ignored", () => {
  const { sdk, win, logged } = setup();
  sdk.init({ access_token: TOKEN });
  const seen = [];
  sdk.sendMessage({ cmd: "echo", params: {} }, (result) => seen.push(result));
  const id = lastSent(win).message.params.callback;
  answer(win, id, "evil origin", { origin: "https://evil.example" });
  answer(win, id, "prefix origin", { origin: SITE + ".evil.example" });
  answer(win, id, "other window", { source: {} });
  win.deliver({ origin: SITE, source: win.parent, data: { callback: id, result: "an object, not JSON text" } });
  win.deliver({ origin: SITE, source: win.parent, data: "{not json" });
  win.deliver({ origin: SITE, source: win.parent, data: JSON.stringify([id]) });
  assert.deepEqual(seen, []);
  answer(win, "f-unknown", "nobody asked");
  assert.ok(logged.some((line) => line.includes("Unknown Callback")));
  answer(win, id, "the host");
  assert.deepEqual(seen, ["the host"]);
});

test("sendMessage rejects a message without a cmd or with params that are not an object", () => {
  const { sdk } = setup();
  sdk.init({ access_token: TOKEN });
  assert.throws(() => sdk.sendMessage({ params: {} }), TypeError);
  assert.throws(() => sdk.sendMessage({ cmd: "echo", params: "x" }), TypeError);
});

test("dialog sends the dialog name as cmd; params are optional (dialog(name, callback))", async () => {
  const { sdk, win } = setup();
  sdk.init({ access_token: TOKEN });
  const seen = [];
  sdk.dialog("thing_search", (result) => seen.push(result));
  let { message } = lastSent(win);
  assert.equal(message.cmd, "thing_search");
  assert.deepEqual(Object.keys(message.params).sort(), ["access_token", "callback"]);
  answer(win, message.params.callback, { status: "cancelled" });
  assert.deepEqual(seen, [{ status: "cancelled" }]);

  const promise = sdk.dialog("file_select", { thing_id: 7, extension: "stl,obj" });
  ({ message } = lastSent(win));
  assert.equal(message.params.thing_id, 7);
  assert.equal(message.params.extension, "stl,obj");
  answer(win, message.params.callback, { status: "ok", thing_id: 7, file_id: 3 });
  assert.deepEqual(await promise, { status: "ok", thing_id: 7, file_id: 3 });
  assert.throws(() => sdk.dialog("", () => {}), TypeError);
});

function fakeFetch(responses) {
  const calls = [];
  const fetch = async (url, init) => {
    calls.push({ url, init });
    const next = responses.shift() || { status: 200, body: {} };
    if (next.networkError) throw new TypeError("Failed to fetch");
    const headers = new Map(Object.entries(next.headers || {}));
    return {
      ok: next.status >= 200 && next.status < 300,
      status: next.status,
      headers: { get: (name) => headers.get(name) || null },
      text: async () => (typeof next.body === "string" ? next.body : JSON.stringify(next.body)),
    };
  };
  return { fetch, calls };
}

test("api GETs a relative endpoint under api_url with the Bearer token, without cookies", async () => {
  const { fetch, calls } = fakeFetch([{ status: 200, body: { name: "ada" } }]);
  const { sdk } = setup({ fetch });
  sdk.init({ access_token: TOKEN, api_url: "https://api.example" });
  const seen = [];
  const data = await sdk.api("/users/me", (body, meta) => seen.push([body, meta.status]));
  assert.deepEqual(data, { name: "ada" });
  assert.deepEqual(seen, [[{ name: "ada" }, 200]]);
  assert.equal(calls[0].url, "https://api.example/users/me");
  assert.equal(calls[0].init.method, "GET");
  assert.equal(calls[0].init.headers.Authorization, "Bearer " + TOKEN);
  assert.equal(calls[0].init.credentials, "omit");
  assert.equal(calls[0].init.mode, "cors");
});

test("api takes a path without a slash, a full URL of the API, and query parameters", async () => {
  const { fetch, calls } = fakeFetch([]);
  const { sdk } = setup({ fetch });
  sdk.init({ access_token: TOKEN, api_url: "https://api.example" });
  await sdk.api("newest", () => {});
  await sdk.api("https://api.example/things/5", () => {});
  await sdk.api("/search/bracket/", { per_page: 5, page: 2 }, () => {});
  assert.deepEqual(
    calls.map((call) => call.url),
    ["https://api.example/newest", "https://api.example/things/5", "https://api.example/search/bracket/?per_page=5&page=2"]
  );
});

test("api never sends the token to another origin", async () => {
  const { fetch, calls } = fakeFetch([]);
  const { sdk } = setup({ fetch });
  sdk.init({ access_token: TOKEN, api_url: "https://api.example" });
  const seen = [];
  await sdk.api("https://api.example.evil.test/users/me", (body, meta) => seen.push([body.type, meta.ok]));
  await assert.rejects(sdk.api("https://evil.test/steal"), /only/);
  assert.deepEqual(seen, [["FOREIGN_URL", false]]);
  assert.equal(calls.length, 0);
});

test("api is read-only", async () => {
  const { fetch, calls } = fakeFetch([]);
  const { sdk } = setup({ fetch });
  sdk.init({ access_token: TOKEN });
  const seen = [];
  await sdk.api("/things/", { method: "POST", name: "x" }, (body) => seen.push(body.type));
  assert.deepEqual(seen, ["METHOD_NOT_ALLOWED"]);
  assert.equal(calls.length, 0);
});

test("api hands errors to the callback with the status, and rejects the promise without one", async () => {
  const body = { error: "Not Found", code: 404, type: "NOT_FOUND" };
  const { fetch } = fakeFetch([{ status: 404, body }, { status: 404, body }, { networkError: true }]);
  const { sdk } = setup({ fetch });
  sdk.init({ access_token: TOKEN });
  const seen = [];
  const resolved = await sdk.api("/things/999", (data, meta) => seen.push([data, meta.ok, meta.status]));
  assert.deepEqual(resolved, body);
  assert.deepEqual(seen, [[body, false, 404]]);
  await assert.rejects(sdk.api("/things/999"), (error) => error.status === 404 && error.data.type === "NOT_FOUND");
  const network = [];
  await sdk.api("/users/me", (data) => network.push(data.type));
  assert.deepEqual(network, ["NETWORK_ERROR"]);
});

test("api passes the Link header's pages and the rate limit on", async () => {
  const link = '<https://api.example/newest/?page=2>; rel="next", <https://api.example/newest/?page=9>; rel="last"';
  const { fetch } = fakeFetch([{ status: 200, body: [], headers: { Link: link, "X-RateLimit-Remaining": "299" } }]);
  const { sdk } = setup({ fetch });
  sdk.init({ access_token: TOKEN });
  let meta;
  await sdk.api("/newest/", (data, m) => { meta = m; });
  assert.equal(meta.links.next, "https://api.example/newest/?page=2");
  assert.equal(meta.links.last, "https://api.example/newest/?page=9");
  assert.equal(meta.rateLimitRemaining, "299");
});

test("launchParams reads the launch fragment the Thing page sets", () => {
  const { sdk } = setup({ hash: "#access_token=" + TOKEN + "&token_type=bearer&expires_in=86400&thing_id=42" });
  assert.deepEqual(sdk.launchParams(), {
    access_token: TOKEN,
    token_type: "bearer",
    expires_in: 86400,
    thing_id: 42,
  });
  assert.deepEqual(setup().sdk.launchParams(), {});
});

test("log prefixes like the original SDK", () => {
  const { sdk, logged } = setup();
  sdk.log("hello");
  assert.deepEqual(logged, ["[APP] hello"]);
});

test("in a browser the script defines Thingyard and, for the original SDK's apps, TV", () => {
  const vm = require("node:vm");
  const fs = require("node:fs");
  const source = fs.readFileSync(path.join(__dirname, "..", "thingyard-sdk.js"), "utf8");
  const win = fakeWindow();
  win.window = win;
  win.URL = URL;
  win.document = { currentScript: { src: SITE + "/static/sdk/thingyard-sdk.js" } };
  vm.runInNewContext(source, win);
  assert.equal(win.TV, win.Thingyard);
  win.TV.init({ access_token: TOKEN });
  assert.equal(win.TV.opts.target_url, SITE);
  assert.equal(typeof win.TV.api, "function");

  const first = win.Thingyard;
  vm.runInNewContext(source, win);
  assert.equal(win.Thingyard, first, "loading it twice keeps the first instance");
});

test("the ES module build exports the same functions", async () => {
  const win = fakeWindow();
  const saved = {};
  for (const key of ["window", "document", "postMessage", "addEventListener", "parent", "location"]) {
    saved[key] = Object.getOwnPropertyDescriptor(globalThis, key);
  }
  try {
    globalThis.window = globalThis;
    globalThis.document = { currentScript: null };
    globalThis.postMessage = () => {};
    globalThis.addEventListener = win.addEventListener;
    globalThis.parent = win.parent;
    globalThis.location = { hash: "" };
    // The classic file was require()d above; run it again as the module build's import does in a page.
    delete require.cache[require.resolve(path.join(__dirname, "..", "thingyard-sdk.js"))];
    const url = require("node:url").pathToFileURL(path.join(__dirname, "..", "thingyard-sdk.mjs"));
    const esm = await import(url.href);
    assert.equal(esm.default, globalThis.Thingyard);
    for (const name of ["init", "sendMessage", "dialog", "api", "log", "launchParams"]) {
      assert.equal(typeof esm[name], "function", name);
    }
    assert.throws(() => esm.init({ access_token: TOKEN }), /api_url/, "a file: URL is no http(s) default");
  } finally {
    for (const [key, descriptor] of Object.entries(saved)) {
      if (descriptor) Object.defineProperty(globalThis, key, descriptor);
      else delete globalThis[key];
    }
    delete globalThis.Thingyard;
    delete globalThis.TV;
  }
});

// Unit tests of the SDK host's message protocol (static/thingapps/host.js): `node --test static/sdk/tests/`.
// The page part (iframe, modal, origin checks in a real browser) is covered by the Playwright tests.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const { protocol } = require(path.join(__dirname, "..", "..", "thingapps", "host.js"));

const CONTEXT = {
  dialogUrl: "/thing-apps/dialogs/",
  checkoutUrl: "/orders/checkout",
  thingId: "12",
  clientId: "client-abc",
};

function message(cmd, params) {
  return JSON.stringify({ cmd, params });
}

test("an app message is a JSON string {cmd, params} whose params carry the callback id and the token", () => {
  const parsed = protocol.parseMessage(message("echo", { foo: 1, access_token: "t0k", callback: "f1" }));
  assert.deepEqual(parsed, {
    cmd: "echo",
    params: { foo: 1, access_token: "t0k", callback: "f1" },
    callback: "f1",
    token: "t0k",
  });
});

test("the original SDK's access_code is read as the token", () => {
  assert.equal(protocol.parseMessage(message("echo", { access_code: "abc", callback: "f1" })).token, "abc");
});

test("a message with no token at all carries a null token, one with a non-string token an empty one", () => {
  // Older SDK builds send `access_code`, undefined when the app was initialised with `access_token`:
  // JSON.stringify drops it, so the host receives no token key at all.
  const older = JSON.stringify({ cmd: "echo", params: { access_code: undefined, foo: 1, callback: "f1" } });
  assert.equal(protocol.parseMessage(older).token, null);
  assert.equal(protocol.parseMessage(message("echo", { access_token: null, callback: "f1" })).token, null);
  assert.equal(protocol.parseMessage(message("echo", { access_token: 42, callback: "f1" })).token, "");
  assert.equal(protocol.parseMessage(message("echo", { access_token: { t: 1 }, callback: "f1" })).token, "");
  assert.equal(protocol.parseMessage(message("echo", { access_token: "", callback: "f1" })).token, "");
});

test("the mounted app's own token and a token-less message are accepted; any other token is verified or ignored", () => {
  assert.equal(protocol.tokenCheck("issued", "issued"), "accept");
  assert.equal(protocol.tokenCheck(null, "issued"), "accept"); // DECISIONS.md: Iframe SDK host (compat)
  assert.equal(protocol.tokenCheck("another", "issued"), "verify"); // the server says whether it is this app's
  assert.equal(protocol.tokenCheck("", "issued"), "ignore");
  assert.equal(protocol.tokenCheck(undefined, "issued"), "ignore");
});

test("only the mounted iframe's exact window at its exact origin is the app", () => {
  const appWindow = { name: "app" };
  const otherWindow = { name: "other" };
  const origin = "https://app.example";
  const event = (source, from) => ({ source, origin: from, data: message("echo", { callback: "f1" }) });
  assert.equal(protocol.fromApp(event(appWindow, origin), appWindow, origin), true);
  for (const [source, from] of [
    [otherWindow, origin], // another window (the host page itself, another iframe, a popup)
    [appWindow, "https://app.example:8443"], // the app's iframe navigated to another origin
    [appWindow, "http://app.example"],
    [appWindow, "https://evil.example"],
    [null, origin],
  ]) {
    assert.equal(protocol.fromApp(event(source, from), appWindow, origin), false, `${source && source.name} ${from}`);
  }
  assert.equal(protocol.fromApp(event(appWindow, origin), null, origin), false); // no app mounted
});

test("messages that cannot be answered are not read at all", () => {
  for (const data of [
    { cmd: "echo", params: { callback: "f1" } }, // an object, not JSON text
    "{broken",
    JSON.stringify(["echo"]),
    JSON.stringify(null),
    message("echo", { access_token: "t" }), // no callback id
    message("echo", { callback: "" }),
    message("echo", { callback: 42 }),
  ]) {
    assert.equal(protocol.parseMessage(data), null, JSON.stringify(data));
  }
});

test("a message without a cmd is still answered (as an unknown command)", () => {
  const parsed = protocol.parseMessage(JSON.stringify({ params: { callback: "f9" } }));
  assert.equal(parsed.cmd, "");
  assert.equal(protocol.isDialog(parsed.cmd), false);
});

test("echo answers the app's own params, without the transport fields", () => {
  assert.deepEqual(protocol.appParams({ foo: "bar", n: [1], access_token: "t", access_code: "c", callback: "f" }), {
    foo: "bar",
    n: [1],
  });
});

test("the dialogs are the four of the spec plus payment and address", () => {
  for (const name of ["file_select", "thing_select", "thing_search", "thing_save", "payment", "address"]) {
    assert.ok(protocol.isDialog(name), name);
  }
  for (const name of ["echo", "dialog", "toString", "__proto__", "make_coffee"]) {
    assert.equal(protocol.isDialog(name), false, name);
  }
});

test("file_select needs a thing_id and passes the extensions on", () => {
  const open = protocol.dialogRequest("file_select", { thing_id: 7, extension: "stl,obj" }, CONTEXT);
  assert.equal(open.ok, true);
  assert.equal(open.method, "GET");
  assert.equal(open.url, "/thing-apps/dialogs/file_select?thing_id=7&extension=stl%2Cobj");
  assert.equal(protocol.dialogRequest("file_select", { thing_id: "7", extension: ["stl", "3mf"] }, CONTEXT).url,
    "/thing-apps/dialogs/file_select?thing_id=7&extension=stl%2C%203mf");
  for (const bad of [undefined, "", "x", -1, 0, 1.5, "7; drop", {}]) {
    const refused = protocol.dialogRequest("file_select", { thing_id: bad }, CONTEXT);
    assert.equal(refused.ok, false, String(bad));
    assert.equal(refused.result.status, "error");
    assert.equal(refused.result.type, "INVALID_PARAMS");
  }
});

test("thing_select and thing_search open with their optional parameters", () => {
  assert.equal(protocol.dialogRequest("thing_select", {}, CONTEXT).url, "/thing-apps/dialogs/thing_select");
  assert.equal(protocol.dialogRequest("thing_select", { filter: "liked" }, CONTEXT).url,
    "/thing-apps/dialogs/thing_select?filter=liked");
  assert.equal(protocol.dialogRequest("thing_search", {}, CONTEXT).url, "/thing-apps/dialogs/thing_search");
  assert.equal(protocol.dialogRequest("thing_search", { q: "cable clip" }, CONTEXT).url,
    "/thing-apps/dialogs/thing_search?q=cable%20clip");
  const long = protocol.dialogRequest("thing_search", { q: "x".repeat(500) }, CONTEXT).url;
  assert.equal(long.length, "/thing-apps/dialogs/thing_search?q=".length + 200);
});

test("thing_save posts its fields (long texts never go in a URL)", () => {
  const open = protocol.dialogRequest(
    "thing_save",
    { id: 5, name: "N", description: "d".repeat(10000), tags: ["a", "b"], is_published: 1, is_wip: false, junk: "x" },
    CONTEXT
  );
  assert.equal(open.method, "POST");
  assert.equal(open.url, "/thing-apps/dialogs/thing_save");
  assert.deepEqual(Object.keys(open.fields).sort(), ["description", "id", "is_published", "is_wip", "name", "step", "tags"]);
  assert.equal(open.fields.step, "prefill");
  assert.equal(open.fields.tags, "a, b");
  assert.equal(open.fields.is_published, "1");
  assert.equal(open.fields.is_wip, "0");
  assert.equal(protocol.dialogRequest("thing_save", { id: "nope" }, CONTEXT).result.type, "INVALID_PARAMS");
  assert.equal(protocol.dialogRequest("thing_save", {}, CONTEXT).ok, true);
});

test("payment and address open the checkout for this app, on this Thing by default", () => {
  const open = protocol.dialogRequest("payment", { amount: "15.00", charges: [{ name: "Item", amount: "15.00" }] }, CONTEXT);
  const url = new URL(open.url, "https://thingyard.example");
  assert.equal(url.pathname, "/orders/checkout");
  assert.equal(url.searchParams.get("thing_id"), "12");
  assert.equal(url.searchParams.get("client_id"), "client-abc");
  assert.equal(url.searchParams.get("amount"), "15.00");
  assert.deepEqual(JSON.parse(url.searchParams.get("charges")), [{ name: "Item", amount: "15.00" }]);
  const other = new URL(protocol.dialogRequest("address", { amount: 3, thing_id: 99, client_id: "forged" }, CONTEXT).url,
    "https://thingyard.example");
  assert.equal(other.searchParams.get("thing_id"), "99");
  assert.equal(other.searchParams.get("client_id"), "client-abc", "an app cannot charge in another app's name");
  assert.equal(protocol.dialogRequest("payment", {}, CONTEXT).result.type, "INVALID_PARAMS");
});

test("error results have a status, a message and a type", () => {
  assert.deepEqual(protocol.errorResult("UNKNOWN_COMMAND", 'Unknown command "x".'), {
    status: "error",
    error: 'Unknown command "x".',
    type: "UNKNOWN_COMMAND",
  });
});

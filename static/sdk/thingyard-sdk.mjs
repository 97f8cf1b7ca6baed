// Thingyard iframe SDK as an ES module: `import TV from ".../static/sdk/thingyard-sdk.mjs"` or
// `import { init, dialog, api } from ...`. The same code as thingyard-sdk.js (loaded once, it also
// sets the `Thingyard` and `TV` globals); see that file and /developers/docs/thing-apps.
import "./thingyard-sdk.js";

const sdk = globalThis.Thingyard;
// A module has no document.currentScript: the defaults (api_url, target_url) come from this URL.
sdk._setScriptOrigin(new URL(import.meta.url).origin);

export default sdk;
export const init = sdk.init;
export const sendMessage = sdk.sendMessage;
export const dialog = sdk.dialog;
export const api = sdk.api;
export const log = sdk.log;
export const launchParams = sdk.launchParams;
export const VERSION = sdk.VERSION;

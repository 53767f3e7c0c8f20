// Stands in for the whatwg-url package in the bundle (scripts/build.ts):
// node-fetch 2 imports it only for `Url.URL || whatwgUrl.URL`, and Node has
// its own URL, so nothing of the package ever runs.
const { URL, URLSearchParams } = globalThis;
export { URL, URLSearchParams };
export default { URL, URLSearchParams };

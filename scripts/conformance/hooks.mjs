// Module resolve hook: the conformance package's `fs` import gets fs-glob-shim.mjs instead.
const shim = new URL("./fs-glob-shim.mjs", import.meta.url).href;

export async function resolve(specifier, context, next) {
  if ((specifier === "fs" || specifier === "node:fs") && context.parentURL?.includes("/@modelcontextprotocol/conformance/")) {
    return { url: shim, shortCircuit: true };
  }
  return next(specifier, context);
}

/**
 * The sandbox's published demo key (README.md, "Try it"), in clear: the one key the gateway
 * itself hands out, in the downloadable collection (openapi/collection.ts), and only in sandbox
 * mode, where config/sandbox-access.yaml holds its hash. It grants nothing by itself: the
 * collection carries it only when the loaded access document knows it, with what that document
 * lets it call.
 */
export const SANDBOX_DEMO_KEY = 'cbk_5fd3cTg5ExVdUlVXmWrKUMJpvMzzJga5_3Ux21d';

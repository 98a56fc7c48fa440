// The browser UIs import microdiff from `/ui-vendor/microdiff.js` (served by
// src/admin/ui-vendor.ts from node_modules); a UI module's relative import of it lands here for
// the type checker, which takes the package's own types.
export { default } from 'microdiff';
export type { Difference } from 'microdiff';

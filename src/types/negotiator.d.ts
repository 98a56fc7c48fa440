/**
 * Types of negotiator 1.x for the one call the gateway makes (encoding negotiation, with the
 * `preferred` order that version added), written from its index.js: @types/negotiator describes
 * 0.6, whose `encoding` takes no options.
 *
 * Reads and sets nothing: declarations only. Check them again when negotiator's major version moves.
 */
declare module 'negotiator' {
  import type { IncomingMessage } from 'node:http';

  class Negotiator {
    constructor(request: Pick<IncomingMessage, 'headers'>);
    /** The client's most preferred of `available`, ties broken by `preferred`; undefined when none is acceptable. */
    encoding(available: readonly string[], options?: { readonly preferred?: readonly string[] }): string | undefined;
  }
  export = Negotiator;
}

/**
 * The body contract: what the body step needs from a request-body schema, whoever wrote it.
 *
 * Reads nothing; declares the interface, the parsed-document shape the body step hands over,
 * and the registry type. A contract decodes a parsed body into the canonical value and the
 * JSON text the core receives (throwing one 400 that lists every bad field), renders the
 * core's answer in the vendor's format, and describes itself for the OpenAPI document.
 */
import type { BodySchemaId } from '../catalogue/api-catalogue';
import { GatewayError, type FieldError } from '../errors/error-catalogue';
import type { XmlElement } from '../xml/safe-xml';

/** The two wire formats a body is read and answered in. */
export type WireFormat = 'json' | 'xml';

/** A body after parsing and before validation: JSON with numbers as LosslessNumber, or XML's root element. */
export type ParsedDocument = { readonly format: 'json'; readonly json: unknown } | { readonly format: 'xml'; readonly xml: XmlElement };

/** What a refusal answered as the body is written from: what could be read of the body, and the form its answer takes. */
export interface AnswerForm {
  /** The body's canonical value, or what could be read of an invalid one. */
  readonly value: Readonly<Record<string, unknown>>;
  readonly responseFormat: WireFormat;
  readonly responseMediaType: string;
  readonly responseXmlNamespace: string;
}

export interface DecodedBody {
  /** Canonical value: JSON names, decimals as LosslessNumber. */
  readonly value: Readonly<Record<string, unknown>>;
  /** Canonical JSON text: exactly what the core receives. */
  readonly coreJson: string;
}

/** OpenAPI 3.0 schema objects (plain JSON). */
export type OpenApiSchema = Record<string, unknown>;

export interface BodyContract {
  readonly id: BodySchemaId;
  /** Wire formats the contract reads and writes; a JSON-only contract lists ['json']. */
  readonly formats: readonly WireFormat[];
  /** Throws GatewayError `invalid_request` with `errors[]` naming every bad field. */
  decode(document: ParsedDocument): DecodedBody;
  /** The core's answer in the vendor's format (XML in `xmlNamespace`, none when ''); without it the core's text passes through unchanged. */
  renderResponse?(coreText: string, format: WireFormat, xmlNamespace: string): string;
  /** renderResponse from the answer already parsed (lossless-json); present exactly when renderResponse is. */
  renderValue?(answer: unknown, format: WireFormat, xmlNamespace: string): string;
  /**
   * Invalid input is answered as the body itself with `errorMessage` (the receipts: the spec's
   * ErrorMessage, README "Errors"), not as a bare problem (rendered by refusal-answer.ts).
   */
  readonly refusesAsBody?: boolean;
  /**
   * A core refusal (4xx JSON) read as the contract's own answer: only the contract's members, as
   * JSON; null when it is not one (a receipt needs `errorMessage` or `transactionOverrides`).
   */
  refusalAnswer?(coreText: string): string | null;
  /** Fields (JSON names) every answer to a vendor carries, null when the core leaves them out. */
  readonly answeredFields?: readonly string[];
  /** Adds the body's schema to `components` and returns it (usually a $ref): one schema for every format it takes, XML names in `xml` objects. */
  describe?(components: Record<string, OpenApiSchema>): OpenApiSchema;
}

export type BodyContracts = ReadonlyMap<BodySchemaId, BodyContract>;

/** The 400 of a body with bad fields, carrying what could be read of it (to echo in the answer). */
export class InvalidBodyError extends GatewayError {
  constructor(
    detail: string,
    errors: readonly FieldError[],
    readonly readValue: Readonly<Record<string, unknown>>,
  ) {
    super('invalid_request', detail, { errors });
  }
}

/**
 * A problem's body (RFC 9457): its members, built from a GatewayError, and its XML form; and the
 * shape of a renderer that answers a problem in another body (a receipt with the problem
 * alongside), which a body contract provides and the error handler calls without knowing it.
 *
 * Reads nothing; sets nothing.
 */
import { escapeXmlText } from '../xml/xml-text';
import { ERROR_CATALOGUE, problemType, type ErrorCode, type GatewayError } from './error-catalogue';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  requestId: string | undefined;
  errors?: ReadonlyArray<{ field: string; message: string }>;
  /** A pending change's preview against the config in force (409 on approving a change the config outgrew). */
  preview?: unknown;
}

/** A problem answered in another shape than the problem document: the media type and the text. */
export interface RenderedProblem {
  readonly mediaType: string;
  readonly text: string;
}

/** Answers a problem in a body of its own; null leaves it a plain problem. */
export type ProblemRenderer = (problem: ProblemBody) => RenderedProblem | null;

export function problemBody(error: GatewayError, requestId: string | undefined): ProblemBody {
  const body: ProblemBody = {
    type: problemType(error.code),
    title: ERROR_CATALOGUE[error.code].title,
    status: error.status,
    detail: error.detail,
    code: error.code,
    requestId,
  };
  if (error.errors && error.errors.length > 0) body.errors = error.errors;
  if (error.preview !== undefined) body.preview = error.preview;
  return body;
}

/** RFC 9457 appendix B: the XML form, in the urn:ietf:rfc:7807 namespace (a whole document, or an element to place in one). */
export function problemXml(body: ProblemBody, document = true): string {
  const el = (name: string, value: string | number | undefined): string => (value === undefined ? '' : `<${name}>${escapeXmlText(String(value))}</${name}>`);
  const errors = body.errors ? `<errors>${body.errors.map((e) => `<i>${el('field', e.field)}${el('message', e.message)}</i>`).join('')}</errors>` : '';
  return (
    (document ? '<?xml version="1.0" encoding="UTF-8"?>' : '') +
    `<problem xmlns="urn:ietf:rfc:7807">${el('type', body.type)}${el('title', body.title)}${el('status', body.status)}` +
    `${el('detail', body.detail)}${el('code', body.code)}${el('requestId', body.requestId)}${errors}</problem>`
  );
}

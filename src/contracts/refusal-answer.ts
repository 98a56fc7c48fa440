/**
 * Refusals answered as the body itself, for contracts that say so (`refusesAsBody`: the
 * receipts). The spec: "Receipt bodies carry an ErrorMessage string for errors from invalid
 * input", so a .NET client that deserializes the DTO finds the message, as it does in the core's
 * own 400. Two renderers, which the steps that know the contract leave on the request context
 * for the error handler (`ctx.refusalRenderer`):
 * - invalid input (the body step): what could be read of the body (never a secret),
 *   `errorMessage` (the detail, then every bad field, apart by "; ") and `hasOverride: false`;
 * - a core refusal with a receipt (exchange: any 4xx, its 400 or 409 with `errorMessage`, its 422
 *   with `transactionOverrides`): that receipt with its own members only, whatever the problem.
 * Either is written in the format and namespace a receipt answer takes, with the problem
 * alongside: its members at the top level in JSON (`application/problem+json`; the problem's
 * `status` wins over a receipt's), its XML form as the last child in XML, whose root must be the
 * DTO (DataContractSerializer skips the child).
 *
 * Reads the contract and the form of the answer; sets nothing.
 */
import { parse as parseLossless, stringify as stringifyLossless } from 'lossless-json';
import { problemXml, type ProblemBody, type ProblemRenderer, type RenderedProblem } from '../errors/problem';
import type { AnswerForm, BodyContract } from './body-contract';
import { renderAnswerForVendor } from './registry';

/** How invalid input of a request is answered under `contract`; null when its refusals are plain problems. */
export function invalidInputRenderer(contract: BodyContract, form: AnswerForm): ProblemRenderer | null {
  if (!contract.refusesAsBody) return null;
  return function renderInvalidInput(problem) {
    if (problem.code !== 'invalid_request') return null;
    return withProblem(contract, form, stringifyLossless({ ...form.value, errorMessage: receiptErrorMessage(problem), hasOverride: false }) as string, problem);
  };
}

/**
 * The receipt's `errorMessage` for invalid input: the detail, then each bad field as `field:
 * message`, the fields apart by "; " (a message may hold commas or colons of its own), ended
 * with a full stop: `The ReceiptPaymentDto body has 2 invalid fields. amout: unknown field;
 * amount: is required.`
 */
function receiptErrorMessage(problem: ProblemBody): string {
  const fields = (problem.errors ?? []).map((e) => `${e.field}: ${e.message}`).join('; ');
  if (fields === '') return problem.detail;
  return `${problem.detail} ${fields}${/[.!?]$/.test(fields) ? '' : '.'}`;
}

/**
 * How a problem is answered after the core refused with `coreText` (its JSON): as the contract's
 * own answer with the problem alongside; null when the contract answers refusals as plain
 * problems or the text is not one of its answers.
 */
export function coreRefusalRenderer(contract: BodyContract, coreText: string, form: AnswerForm): ProblemRenderer | null {
  if (!contract.refusesAsBody) return null;
  const answer = contract.refusalAnswer?.(coreText) ?? null;
  if (answer === null) return null;
  return function renderCoreRefusal(problem) {
    return withProblem(contract, form, answer, problem);
  };
}

function withProblem(contract: BodyContract, form: AnswerForm, echoed: string, problem: ProblemBody): RenderedProblem {
  const body = renderAnswerForVendor(contract, echoed, form.responseFormat, form.responseXmlNamespace);
  if (form.responseFormat === 'xml') {
    const close = body.lastIndexOf('</');
    return { mediaType: form.responseMediaType, text: `${body.slice(0, close)}${problemXml(problem, false)}${body.slice(close)}` };
  }
  const members = parseLossless(body) as Record<string, unknown>;
  const problemNames = new Set(Object.keys(problem).map((name) => name.toLowerCase()));
  const kept = Object.fromEntries(Object.entries(members).filter(([name]) => !problemNames.has(name.toLowerCase())));
  return { mediaType: 'application/problem+json', text: stringifyLossless({ ...kept, ...problem }) as string };
}

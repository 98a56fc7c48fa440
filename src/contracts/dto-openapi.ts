/**
 * OpenAPI 3.1 schemas of DTO structures, generated from the same schema definitions that
 * validate and translate bodies: one component per structure, named as the .NET class, with
 * the JSON (camelCase) member names as properties and the .NET names, wrapped lists and
 * element names in OpenAPI `xml` objects, so JSON and XML clients read one schema.
 *
 * Where the two wire formats differ in more than names the JSON form is the schema and the
 * XML form is stated beside it: enums are numbers in JSON and names in XML (`x-enumNames`,
 * which NSwag and other .NET generators read for enum member names); ArrearsDays is a JSON
 * object keyed by account id and in XML a list of KeyValueOfintint entries.
 *
 * Reads the structures and the enum tables (so values an admin adds to
 * config/receipt-enums.yaml appear in the document); fills the `components` map it is given.
 */
import type { OpenApiSchema } from './body-contract';
import type { ReceiptEnums } from './enums';
import type { AnyStruct, EnumField, FieldSpec } from './dto-schema';
import { ARRAYS_NAMESPACE } from './dto-xml-writer';

const XML_RULES =
  "In a request, JSON members are read in camelCase or in the .NET spelling and any other member is refused (400 naming it); an answer may carry members a newer core adds. In XML, members are written in DataContract order (ordinal by name) and read in any order; an answer is in the request root's namespace, else the gateway's xml.responseNamespace (none by default)";

/** A `$ref` to the structure's component, adding it (and what it refers to) on first use. */
export function structSchemaRef(struct: AnyStruct, enums: ReceiptEnums, components: Record<string, OpenApiSchema>): OpenApiSchema {
  if (!Object.hasOwn(components, struct.name)) {
    const component: OpenApiSchema = { type: 'object', description: `${struct.description}. ${XML_RULES}`, xml: { name: struct.name } };
    // Set before recursing, so a structure that refers to itself cannot loop.
    components[struct.name] = component;
    const properties: Record<string, OpenApiSchema> = {};
    const required: string[] = [];
    // Properties in the order the spec lists them; the XML order is DataContract's (the description says so).
    for (const field of struct.ordered) {
      properties[field.json] = fieldSchema(field.spec, enums, components);
      if (field.spec.required) required.push(field.json);
    }
    component.properties = properties;
    if (required.length > 0) component.required = required;
  }
  return { $ref: `#/components/schemas/${struct.name}` };
}

function enumSchema(field: EnumField, enums: ReceiptEnums): OpenApiSchema {
  const table = enums.table(field.enumName);
  const legend = table.entries.map((e) => `${e.value} = ${e.name}${e.description ? ` (${e.description})` : ''}`).join('; ');
  return {
    type: 'integer',
    format: 'int32',
    enum: table.entries.map((e) => e.value),
    'x-enumNames': table.entries.map((e) => e.name),
    description: `${field.description}. ${field.enumName}: the number in JSON, the name in XML; configurable in config/receipt-enums.yaml: ${legend}`,
  };
}

/** .NET reference types (strings, byte arrays, objects, lists, dictionaries) may be null in the core's answers; value types may not. */
const REFERENCE_KINDS = new Set<FieldSpec['kind']>(['string', 'binary', 'object', 'list', 'intMap']);

function fieldSchema(spec: FieldSpec, enums: ReceiptEnums, components: Record<string, OpenApiSchema>): OpenApiSchema {
  const schema = REFERENCE_KINDS.has(spec.kind) ? orNull(baseSchema(spec, enums, components)) : baseSchema(spec, enums, components);
  if (spec.readOnly) schema.readOnly = true;
  // A list's xml object names its wrapper; every other member is named here.
  if (spec.kind !== 'list' && spec.kind !== 'intMap') schema.xml = { name: spec.xml };
  return schema;
}

function orNull(schema: OpenApiSchema): OpenApiSchema {
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  const { description, ...rest } = schema;
  return { anyOf: [rest, { type: 'null' }], description };
}

function baseSchema(spec: FieldSpec, enums: ReceiptEnums, components: Record<string, OpenApiSchema>): OpenApiSchema {
  const description = spec.description;
  switch (spec.kind) {
    case 'string':
      return { type: 'string', description };
    case 'int':
      return { type: 'integer', format: 'int32', description };
    case 'decimal':
      return {
        type: 'number',
        format: 'decimal',
        description: `${description}. Exact decimal (at most 28 decimal places, no exponent), passed on as written: read it with a decimal-preserving JSON parser`,
      };
    case 'bool':
      return { type: 'boolean', description };
    case 'datetime':
      // No `format: date-time`: that format demands an offset, and a date alone or a local time is as valid here.
      return { type: 'string', description: `${description}. ISO 8601 date or date-time (offset optional), kept as written` };
    case 'binary':
      return { type: 'string', contentEncoding: 'base64', description: `${description}. Base64` };
    case 'enum':
      return enumSchema(spec, enums);
    case 'object':
      // OpenAPI 3.1 keeps a $ref's siblings, so the member's own description stays beside it.
      return { $ref: structSchemaRef(spec.struct, enums, components).$ref, description };
    case 'list':
      return {
        type: 'array',
        xml: { name: spec.xml, wrapped: true },
        items: structSchemaRef(spec.struct, enums, components),
        description: `${description}. In XML one <${spec.struct.name}> element per item`,
      };
    case 'intMap':
      return {
        type: 'object',
        additionalProperties: { type: 'integer', format: 'int32' },
        propertyNames: { pattern: '^-?\\d{1,10}$' },
        xml: { name: spec.xml },
        description:
          `${description}. JSON: an object keyed by account id (a numeric string), the value in days. ` +
          `XML: one <a:${spec.entry}> element per entry (namespace ${ARRAYS_NAMESPACE}), with <a:Key> (account id) and <a:Value> (days)`,
      };
  }
}
